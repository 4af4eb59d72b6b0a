"""The words the key resolver's rules read keys with (keys.py): modifiers that change nothing,
phrases written several ways, near-synonym heads, and the animals a subject keeps as pets.

General English, not any one data set's keys: a word belongs here when, in a key about the
subject, it never changes which fact the key holds."""

from __future__ import annotations

from agentmem.adapters.local.rules.lexicon import words

# Modifiers that change nothing about what a key holds, on either key: `home_city` is `city` and
# `city` is `home_city`; "annual" is the period a salary or a budget is given in unless another
# is named (`monthly_income` is another quantity: a period word other than these never drops).
VACUOUS = words(
    "home current present new latest main primary usual actual own overall full exact total annual yearly"
)
# Modifiers a proposal may drop but an existing key keeps: `investment_goal` is the declared
# `goal` (a financial goal), but `preference` never becomes `investment_preference`, which says more.
NARROWING = words("financial investment personal")
# A trailing word that only says how the thing is written down: `employer_name` is the employer.
TRAILING = words("name number address title info details type")
# A leading phrase that only says the value is counted: `number_of_children` is `children`.
COUNTED = (("number", "of"), ("count", "of"), ("num",))

# Phrases written several ways, joined into one word before anything else is read. They come
# first so that "of" inside them is not read as an entity's scope (`date_of_birth` is no one's).
COMPOUNDS: dict[tuple[str, ...], str] = {
    ("home", "town"): "hometown",
    ("e", "mail"): "email",
    ("place", "of", "residence"): "residence",
    ("city", "of", "residence"): "city",
    ("country", "of", "residence"): "country",
    ("date", "of", "birth"): "birthdate",
    ("birth", "date"): "birthdate",
    ("place", "of", "birth"): "birthplace",
    ("mother", "tongue"): "native_language",
    ("native", "language"): "native_language",
    ("first", "language"): "native_language",
    ("guinea", "pig"): "guinea_pig",
    ("border", "collie"): "collie",
    ("maine", "coon"): "mainecoon",
    **{("dietary", noun): "diet" for noun in ("need", "requirement", "restriction", "preference", "habit")},
}
"""Matched on stems, so the plural forms join too ("dietary needs", "dietary restrictions")."""

CONCEPTS: dict[str, str] = {
    **dict.fromkeys(["city", "residence", "location", "place", "town"], "city"),
    **dict.fromkeys(
        ["income", "salary", "pay", "earnings", "earning", "wage", "wages", "compensation"], "income"
    ),
    **dict.fromkeys(["employer", "company", "workplace", "firm", "organization"], "employer"),
    **dict.fromkeys(["occupation", "job", "profession", "career", "role", "position"], "occupation"),
    **dict.fromkeys(["child", "children", "kid", "kids"], "child"),
    **dict.fromkeys(["partner", "spouse"], "partner"),
    **dict.fromkeys(["phone", "mobile", "cell", "telephone"], "phone"),
    **dict.fromkeys(["tolerance", "appetite", "profile"], "tolerance"),
    **dict.fromkeys(["goal", "objective", "aim"], "goal"),
    **dict.fromkeys(["hometown", "birthplace"], "hometown"),
    **dict.fromkeys(["favorite", "preferred", "fave"], "favorite"),
    **dict.fromkeys(["food", "cuisine", "dish"], "food"),
    **dict.fromkeys(["drink", "beverage"], "drink"),
    **dict.fromkeys(["film", "movie"], "film"),
    **dict.fromkeys(["car", "vehicle"], "car"),
    **dict.fromkeys(["religion", "faith"], "religion"),
    **dict.fromkeys(["nationality", "citizenship"], "nationality"),
    **dict.fromkeys(["hobby", "pastime"], "hobby"),
    **dict.fromkeys(["birthdate", "birthday", "dob"], "birthdate"),
    **dict.fromkeys(["allergy", "allergies"], "allergy"),
}

# The animals people keep, each as its kind. A key that is one of these words, for an animal the
# subject has (a name, not a count: "my whippet Noodle", not "2 dogs"), is the subject's pet of
# that kind: `whippet` and `dog` are one pet, and so are `pet` and any kind. Two kinds are two
# animals (a subject with a cat and a dog has two pets), so `dog` never joins `tabby`.
PET = "pet"
PET_KINDS: dict[str, str] = {
    **dict.fromkeys(
        words(
            "dog puppy pup doggy beagle collie dachshund greyhound whippet labrador retriever poodle "
            "terrier spaniel husky pug corgi bulldog rottweiler chihuahua schnauzer dalmatian doberman "
            "labradoodle cockapoo lurcher mastiff sheepdog pomeranian"
        ),
        "dog",
    ),
    **dict.fromkeys(words("cat kitten kitty tabby siamese mainecoon ragdoll sphynx moggy"), "cat"),
    **dict.fromkeys(
        words("bird budgie budgerigar parakeet canary cockatiel parrot cockatoo macaw lovebird finch"), "bird"
    ),
    **dict.fromkeys(words("fish goldfish betta guppy"), "fish"),
    **dict.fromkeys(words("rabbit bunny"), "rabbit"),
    **dict.fromkeys(words("horse pony"), "horse"),
    **{
        kind: kind  # each its own kind
        for kind in words(
            "tortoise turtle terrapin hamster gerbil ferret guinea_pig hedgehog chinchilla snake lizard "
            "gecko iguana"
        )
    },
}
NUMBER_WORDS = words("one two three four five six seven eight nine ten eleven twelve couple few several")
