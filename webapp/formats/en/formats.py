# Dates on English pages as the app always wrote them (ISO-like, sortable); the templates name these formats
# instead of writing one, so a Japanese page gets 年月日 (webapp/formats/ja).
DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
DATETIME_FORMAT = "Y-m-d H:i:s e"
