"""Word lists of the chat idioms (`idioms.py` and its modules): cuisines, the last words of
organisation names, pet kinds. Generic English, no tenant and no test sentence; a value must
still be the event's own words."""

from __future__ import annotations

import re

from agentmem.adapters.local.rules.lexicon import words

CUISINES = words(
    "afghan african algerian american argentinian armenian asian austrian bangladeshi basque "
    "bavarian belgian brazilian british burmese cajun cambodian cantonese caribbean catalan chilean "
    "chinese colombian creole cuban czech danish dutch egyptian english eritrean ethiopian filipino "
    "french georgian german ghanaian goan greek gujarati hainanese hawaiian hunan hungarian indian "
    "indonesian iranian irish israeli italian jamaican japanese jordanian kashmiri keralan korean "
    "kurdish laotian lebanese levantine libyan malaysian maltese mediterranean mexican mongolian "
    "moroccan nepalese nepali nigerian nordic oaxacan pakistani palestinian persian peruvian polish "
    "portuguese provencal punjabi romanian russian sardinian scandinavian scottish senegalese "
    "sichuan szechuan sicilian singaporean somali spanish swedish swiss syrian taiwanese tex-mex "
    "thai tibetan tunisian turkish tuscan ukrainian uzbek venezuelan vietnamese welsh yemeni yunnan"
) | frozenset({"sri lankan", "middle eastern", "north african", "west african", "south indian"})
"""Cuisines a bare idiom may name ("I'd take Thai over Korean", "Korean is my favourite")."""
FOOD_NOUNS = r"food|cuisine|cooking|dishes|restaurants?|places?|meals?|takeaways?|takeouts?"
"""After a capitalised adjective, a noun that makes it a cuisine ("Basque food", "Burmese places")."""
CUISINE = re.compile(
    r"(?P<cuisine>"
    + "|".join(sorted((re.escape(c) for c in CUISINES), key=len, reverse=True))
    + r")(?![\w-])",
    re.I,
)
ORG_WORDS = words(
    "inc incorporated ltd limited llc llp plc gmbh ag sa corp corporation co company group holdings "
    "labs laboratories systems solutions technologies technology software media analytics consulting "
    "consultants partners associates architects engineering industries foods bank capital ventures "
    "insurance logistics health healthcare clinics clinic hospital pharma pharmaceuticals motors "
    "airlines airways studios games entertainment publishing press records networks telecom energy "
    "financial securities investments traders trading outfitters retail stores electronics robotics "
    "circuitry dynamics biotech therapeutics agency design digital interactive institute university "
    "foundation trust services hotels hotel restaurants construction properties shipping"
)
"""Last words that mark a name as an organisation's ("Halcyon Logistics"): "I've been with X for
years" is read only then, since "I've been with Tomasz for years" names a person."""
PETS = words(
    "dog cat kitten puppy rabbit bunny hamster guinea-pig gerbil mouse rat ferret parrot budgie "
    "cockatiel canary bird tortoise turtle lizard gecko snake fish goldfish horse pony chicken hen "
    "beagle terrier spaniel collie labrador retriever poodle greyhound whippet dachshund pug corgi "
    "husky boxer bulldog schnauzer tabby siamese ragdoll persian"
)
"""Kinds of animal a household has: "Nutmeg, my hamster", "Household: a cat, Kiwi (a tabby)"."""
