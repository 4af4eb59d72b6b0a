"""The small English lexicons the rules use. Each list is generic (no tenant, no test sentence);
docs/extraction-rules.md says what each one is for."""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- who is speaking --------------------------------------------------------------------------------

USER_ROLES = words("user human client customer me subject patient")
"""An event's agent (or a transcript label, or a chat message's role) naming the subject's own voice."""
OTHER_ROLES = words("assistant ai agent bot system advisor adviser model chatbot support planner")
USER_KIND_TAILS = words("message msg input turn utterance said says text chat query request prompt")
SUBJECT_NOUNS = ("the client", "the user", "the customer")
"""How an agent's third-person output names the subject besides by name."""

# --- what a sentence must not be -------------------------------------------------------------------

QUESTION_OPENERS = words(
    "what where when who whom whose why how which is are am was were do does did can could would "
    "should will shall have has may might must isn't aren't don't doesn't didn't"
)
HYPOTHETICAL = words(
    "if whether unless suppose supposing imagine imagining assuming assume pretend hypothetically "
    "would could might may maybe perhaps possibly probably should wish hope hoping dream dreaming "
    "when whenever while once since until before after because although though unlike"
)
"""Any of these before a statement in its sentence makes it no statement of a current fact."""
DISCOURSE = words(
    "and but so also plus btw oh well now honestly actually anyway anyways yes yeah ok okay hi hey "
    "hello fyi update note ps then just quick"
)
"""Words that may open a clause before its subject without changing what the clause states."""
ADVERBS = words(
    "really truly absolutely definitely honestly actually still now currently also just totally "
    "genuinely recently finally already always usually mostly generally officially basically "
    "certainly do does"
)
"""Adverbs allowed between a subject and its verb ("I really enjoy jazz")."""

# --- what a value or an attribute must not be -------------------------------------------------------

PRONOUNS = words(
    "it this that these those them him her you me us they he she we what how when where why who "
    "whom whether if something anything everything nothing someone anyone everyone myself yourself "
    "itself ourselves themselves there here one"
)
RELATION_NOUNS = words(
    "wife husband partner spouse boyfriend girlfriend fiance fiancee son daughter kid kids child "
    "children baby mom mum mother dad father parent parents brother sister sibling siblings friend "
    "friends boss manager colleague coworker co-worker neighbor neighbour roommate flatmate aunt uncle "
    "cousin grandma grandpa grandmother grandfather grandparents nephew niece family team dog cat "
    "pet puppy kitten landlord teacher doctor therapist lawyer"
)
"""Other entities: "my wife is a doctor" is about the wife. Only a name may follow ("my dog is Rex")."""
DISCOURSE_NOUNS = words(
    "question questions point concern concerns guess answer understanding thought thoughts feeling "
    "opinion view idea suggestion worry issue problem hope fear bet reason excuse impression take "
    "advice request bad pleasure turn fault mistake apologies apology sense point worry"
)
"""Nouns that introduce a remark rather than name an attribute ("my question is whether ...")."""
EVALUATIVE = words(
    "beautiful great nice amazing awesome awful terrible horrible boring fun lovely wonderful "
    "fantastic bad good fine ok okay okay cool busy crowded expensive cheap big small huge tiny "
    "pretty ugly interesting weird strange crazy stressful hard easy tough difficult perfect "
    "special important fine complicated messy noisy quiet safe dangerous"
)
"""A bare evaluation is no value: "my city is beautiful" names no city."""
FILLERS = words("uh um er erm uh-huh hm hmm mm huh")
"""What a speaker says while finding the next word: never part of a value."""
DEGREE = words("very so too pretty quite rather really extremely super kinda somewhat a bit little")
PREPOSITIONS = words(
    "in at on with from for to about like over under by near into onto through without within "
    "across after before during since until around behind beside between toward towards via"
)
NEGATORS = words(
    "not no never don't doesn't didn't isn't aren't wasn't weren't won't cannot can't couldn't "
    "wouldn't shouldn't hasn't haven't hadn't none nor neither without non"
)
COUNT_STOP = words(
    "minute minutes hour hours day days week weeks month months year years second seconds time "
    "times question questions idea ideas thing things option options reason reasons problem "
    "problems issue issues concern concerns meeting meetings point points step steps way ways "
    "choice choices chance chances dollar dollars percent tab tabs email emails message messages "
    "call calls comment comments request requests task tasks item items more less right rights"
)
"""Nouns that count a moment or a remark, not a possession ("I have 5 minutes")."""
KEY_MODIFIERS = words("new current present latest actual")
"""Dropped from an attribute when it becomes a key: "my new address" is "address"."""

DIETS = words(
    "vegan vegetarian pescatarian pescetarian flexitarian keto paleo halal kosher gluten-free "
    "dairy-free lactose-free plant-based low-carb low-fodmap low-sodium low-salt low-fat sugar-free nut-free"
)
"""Diets a person keeps ("I'm vegan", "I eat halal"): read as `diet` only after the subject."""
PARTNERS = words("partner spouse wife husband boyfriend girlfriend fiance fiancee fiancé fiancée")
"""Relations a person has one of at a time: "my partner Sam", "my wife's name is Ana"."""
PEOPLE = RELATION_NOUNS - words("dog cat pet puppy kitten") - PARTNERS
"""A thing called by name ("a terrier called Biscuit") is the subject's, unless it is a person."""

NUMBER_WORDS = {
    w: n
    for n, w in enumerate(
        (
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        )
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}

# --- key spellings ----------------------------------------------------------------------------------

SPELLING = {
    "favourite": "favorite",
    "colour": "color",
    "neighbourhood": "neighborhood",
    "organisation": "organization",
    "licence": "license",
}
"""One spelling for a key's words, so "favourite colour" and "favorite color" are one key."""
PLURALS = {"child": "children", "person": "people", "man": "men", "woman": "women", "kid": "kids"}
