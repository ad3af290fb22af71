"""Words that name or modify a time: the lists the time tagger and the date recognizers share."""

TIME_WORDS = frozenset("""
now today tonight tomorrow yesterday tmr tdy tmrw morning mornings afternoon afternoons evening evenings night nights
noon midnight dawn dusk sunrise sunset daylight daybreak nightfall
weekend weekends weekday weekdays day days week weeks month months year years
hour hours minute minutes second seconds decade decades century fortnight daily nightly
weekly monthly yearly annually hourly currently recently lately soon later earlier tomorrows overnight
christmas xmas halloween easter thanksgiving valentine valentines newyear nye ramadan diwali hanukkah
spring summer autumn fall winter semester season
teatime lunchtime dinnertime bedtime daytime nighttime cny deepavali vesak thaipusam hanukah
goodnight goodnite gnight goodmorning gmorning
tgif eid
""".split())
# Time words as posts write them (SNS slang and abbreviations), with the word they stand for. The temporal
# normalization writes them out before parsing; the recognizers count them as time anchors. Ambiguous ones are
# read in context where they are used: "TN" (Tennessee) and "YTD" (year-to-date) in capitals, "sun", "sat",
# "wed" (words), "raya" (a name; "duit raya", "for raya" is Hari Raya), "bday" (a date only "on my bday").
TIME_SLANG: dict[str, str] = {
    "2moro": "tomorrow", "2morrow": "tomorrow", "2mrw": "tomorrow", "2mro": "tomorrow", "2mr": "tomorrow",
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmrrw": "tomorrow", "tmrow": "tomorrow", "tmw": "tomorrow",
    "tml": "tomorrow", "tomoz": "tomorrow", "tommorow": "tomorrow", "tomorow": "tomorrow", "tomo": "tomorrow",
    "tomolo": "tomorrow", "tomoro": "tomorrow", "trmw": "tomorrow",
    "2nite": "tonight", "2night": "tonight", "tonite": "tonight", "2nyt": "tonight", "tonyt": "tonight",
    "tn": "tonight",
    "2day": "today", "tday": "today",
    "yday": "yesterday", "ytd": "yesterday", "ystd": "yesterday", "yest": "yesterday", "ytdy": "yesterday",
    "mornin": "morning", "morn": "morning", "arvo": "afternoon", "aftn": "afternoon", "evng": "evening",
    "nite": "night", "wknd": "weekend", "wkend": "weekend", "xmas": "Christmas",
}
# Weekdays and months: full names always; abbreviations when written with a capital ("Sat", not "sat down").
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
MONTHS = frozenset("january february march april june july august september october november december".split())
MONTH_ABBREVIATIONS = frozenset("jan feb mar apr jun jul aug sep sept oct nov dec".split())
WEEKDAY_ABBREVIATIONS = frozenset("mon tue tues wed thu thur thurs fri sat sun".split())
ORDINAL_MODIFIERS = frozenset("first second third fourth fifth final".split())
PERSON_MONTHS = frozenset("april may june august".split())  # months that are also first names
SPEECH_VERBS = frozenset("said says say told tells texted texts called calls asked asks wants wanted thinks thought "
                         "loves loved posted sent".split())
PARTS_AFTER_A_DAY = frozenset("night nite morning afternoon evening".split())
