# Dates on Japanese pages: 2026年12月6日 11:23 (Django's own Japanese formats write the time as 11:23 too).
DATE_FORMAT = "Y年n月j日"
SHORT_DATETIME_FORMAT = "Y年n月j日 H:i"
DATETIME_FORMAT = "Y年n月j日 H:i:s e"
