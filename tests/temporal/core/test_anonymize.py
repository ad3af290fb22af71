"""Temporal anonymization on the paper's examples: adjunct time phrases are pruned, arguments generalized, and
whatever stays comes back exactly as written."""

from __future__ import annotations

import pytest

from anonymizer.temporal.anonymize import TemporalAnonymizer
from anonymizer.temporal.evaluate import naturalness_problems
from anonymizer.temporal.normalize import normalize


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        ("I go to Tokyo with friends at 9AM.", "I go to Tokyo with friends."),  # the paper's Figure 1
        ("Heading to the gym at 3 PM", "Heading to the gym"),
        ("im goin 2 the gym w/ my bro 2moro at 9am!!!", "im goin 2 the gym w/ my bro!!!"),
        ("Tonight, we eeat sushiii", "We eeat sushiii"),
        ("Live Streaming on 14th December Friday http://t.co/QbOsZZdZ", "Live Streaming http://t.co/QbOsZZdZ"),
        ("no time here at all, just fun", "no time here at all, just fun"),
    ],
)
def test_adjunct_time_phrases_are_pruned_and_the_rest_is_kept_as_written(anonymizer, post, expected):
    (result,) = anonymizer.transform([post])
    assert result.text == expected


def test_a_time_subject_is_generalized_not_deleted(anonymizer):
    # A subject right before its copula becomes "it": the sentence keeps its shape and says nothing of when.
    (result,) = anonymizer.transform(["Tomorrow is my birthday!!! sooo happyyy"])
    assert result.text == "It is my birthday!!! sooo happyyy"
    assert result.generalized == [("Tomorrow", "It")] and not result.removed


def test_prune_only_leaves_arguments_alone_and_generalize_only_never_cuts(anonymizer):
    nlp = anonymizer.nlp
    prune_only = TemporalAnonymizer(nlp, generalize=False)
    generalize_only = TemporalAnonymizer(nlp, prune=False)
    posts = ["Tomorrow is my birthday", "I go to Tokyo with friends at 9AM."]
    assert [r.text for r in prune_only.transform(posts)] == ["Tomorrow is my birthday", "I go to Tokyo with friends."]
    generalized = generalize_only.transform(posts)
    assert generalized[0].text == "It is my birthday" and not any(r.removed for r in generalized)


def test_the_natural_check_flags_a_dangling_preposition(anonymizer):
    post = "I go to Tokyo with friends at 9AM."
    norm = normalize(post)
    doc = anonymizer.nlp(norm.text)
    time_tokens = {t.i for t in doc if t.text in ("9AM", "9", "AM")}
    problems = naturalness_problems(doc, time_tokens, set(), post, "I go to Tokyo with friends at.")
    # Both the parse rule and the text rule see it.
    assert problems == ["dangling preposition 'at'", "preposition without its object"]
    result = anonymizer.anonymize_doc(norm, doc)
    assert naturalness_problems(doc, result.cut_tokens, result.replaced_tokens, post, result.text) == []


@pytest.mark.parametrize(("post", "expected"), [
    # A stretch of time "of" something: the something takes its place.
    ("enjoy your well deserved months of leave", "enjoy your well deserved leave"),
    # A period with adjectives keeps them: they say nothing of when.
    # A countdown opening a sentence before "till" is rewritten: cutting would leave "till I'm back", and "Some
    # time till" read unnaturally (round 6).
    ("6 more days till I'm back to my happy place!", "Counting down till I'm back to my happy place!"),
    # An adverb is cut, never generalized ("for a certain moment" is not English).
    ("I'm just doing boxing for now. Army soon?", "I'm just doing boxing for now. Army soon?"),  # "now" words stay
    # A time noun with its own adjectives keeps them and becomes "time": they say nothing of when.
    ("Its a hot day !", "Its a hot time !"),
    # A preposition whose object was cut goes; so does a sentence of time only, even when nothing is left: readers
    # found every neutral sentence ("A certain day.") unnatural (round 6).
    ("at 9am", ""),
    ("Today. https://t.co/InSci0V5NZ", "https://t.co/InSci0V5NZ"),
])
def test_shapes_found_in_real_tweets(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


def test_granularity_keeps_coarse_expressions_and_cuts_precise_ones(anonymizer):
    keep_parts_of_day = TemporalAnonymizer(anonymizer.nlp, keep_kinds=frozenset({"part_of_day"}))
    (result,) = keep_parts_of_day.transform(["I run in the morning on Monday."])
    assert result.text == "I run in the morning." and result.removed == ["on", "Monday"]
    (everything,) = anonymizer.transform(["I run in the morning on Monday."])
    assert everything.text == "I run."
    with pytest.raises(ValueError, match="unknown kinds"):
        TemporalAnonymizer(anonymizer.nlp, keep_kinds=frozenset({"fortnight"}))


@pytest.mark.parametrize(("post", "expected"), [
    # The role of the time expression picks the rewrite (issue 18's kinds, in the shapes of the training tweets).
    # A possessive or an adjective stays, the time noun becomes a neutral one of the same number.
    ("how's your Saturday been?", "how's your day been?"),
    ("have a good sunday!", "have a good day!"),
    ("Had a fun evening staying at Changi with my teammates", "Had a fun time staying at Changi with my teammates"),
    # ... but "a fun day" says how the day was, not which: it stays (round 6; readers found "a great day" no time).
    ("Had a fun day staying at Changi with my teammates", "Had a fun day staying at Changi with my teammates"),
    ("The good old days are gone.", "The good old times are gone."),
    # A greeting that opens a sentence keeps greeting, without the time.
    ("Goood morning!! #authentic", "Hello!! #authentic"),
    ("Dining at Ikea with mum and sissy! Happy friday night!", "Dining at Ikea with mum and sissy! Best wishes!"),
    ("@viereedom Merry Christmas!!! And may you have fun", "@viereedom Best wishes!!! And may you have fun"),
    # A clause or a sentence that only says when goes whole, when something else is said.
    ("Its the weekend! Wind down and go shopping with ShopGuru!", "Wind down and go shopping with ShopGuru!"),
    ("It's July and we've signed Sanchez.", "We've signed Sanchez."),
    ("Photo: Golden Path on Flickr. Singapore, Orchard. April 2014. http://t.co/ERy3P6YGAi",
     "Photo: Golden Path on Flickr. Singapore, Orchard. http://t.co/ERy3P6YGAi"),
    ("Omg cant wait to fly. 2 more hours!!", "Omg cant wait to fly."),
    # ... but not the end of a clause the parser took for a sentence: a bare "today" goes alone (round 6: never
    # "a certain day").
    ("Yoga was........ today. But it felt great", "Yoga was........ But it felt great"),
    # A time noun naming an event with the nouns in front: the name stays.
    ("Date night with my love - watching Home", "Date with my love - watching Home"),
    # A time word describing a thing: the thing stays; a bare time word in an object's place is an adverbial.
    ("Grab your rainy day essentials from Zalora", "Grab your essentials from Zalora"),
    ("Voting closes midnight! RT!!", "Voting closes! RT!!"),
    # A bare plural time noun becomes the mass noun.
    # Round 4, from the training tweets: the neutral noun agrees with its verb; a describing word the parser
    # took for a name keeps its noun; a clause that only says when, before a comma and another clause, goes.
    ("Nicest evening with team and @BretFurio at Kudeta.", "Nicest time with team and @BretFurio at Kudeta."),
    ("It's the weekend, Stop working and go shopping! http://t.co/LvqDvNpIMn",
     "Stop working and go shopping! http://t.co/LvqDvNpIMn"),
])
def test_the_rewrite_fits_the_role_of_the_time_expression(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


@pytest.mark.parametrize(("post", "expected"), [
    # Round 4, from the training tweets: a qualifier goes with its time ("even at night", "5am sharp"); a
    # conjunction or comma whose neighbour went goes too; glued punctuation no longer hides a time.
    ("I beg all drivers to drive cautiously, even at night please. I beg you",
     "I beg all drivers to drive cautiously, please. I beg you"),
    ("I wake up at 5am sharp from every Monday to Thursday morning without any help.",
     "I wake up without any help."),
    ("I rky need a full-time, office hours job.", "I rky need a full-time job."),
    ("Finals is happening this Sat,7pm at Kallang Theatre.", "Finals is happening at Kallang Theatre."),
    ("I will be only seeing him in a week's time~ http://t.co/44pQFIJZpK", "I will be only seeing him~ http://t.co/44pQFIJZpK"),
    ("Can't wait to experience Sri Lanka by daylight", "Can't wait to experience Sri Lanka"),
    # ... and a comma between words that do not describe one noun stays.
    ("My bro very powderful, 8am class, leave the house at 8am.", "My bro very powderful, class, leave the house."),
])
def test_no_word_is_left_without_its_time(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


@pytest.mark.parametrize(("post", "expected"), [
    # Round 5, from US Midwest posts (the round-4 held-out sample): an age, a rate or a verb is no time.
    ("A fucking 16 year old just flipped me off", "A fucking 16 year old just flipped me off"),
    ("All these 18 and 19 year olds getting engaged", "All these 18 and 19 year olds getting engaged"),
    ("I'm gonna shoot his 12yr old ass..", "I'm gonna shoot his 12yr old ass.."),
    ("$174 per month $7700 annual out-of-pocket", "$174 per month $7700 annual out-of-pocket"),
    ("I cannot fall asleep without a fan on in my room.", "I cannot fall asleep without a fan on in my room."),
    # A month takes its day number; a digit after a month is no "for"; an amount after "today" stays.
    ("Jun 28 UV index forecast for Des Moines is 4 (moderate)", "UV index forecast for Des Moines is 4 (moderate)"),
    ("Senate delays healthcare bill vote until after July 4 recess", "Senate delays healthcare bill vote until recess"),
    ("Temperature 70.9 °F. Rain today 0.00 in. Humidity 43%", "Temperature 70.9 °F. Rain 0.00 in. Humidity 43%"),
    # Time hashtags with a year or a weekday inside; a hashtag argument keeps its article with a neutral noun.
    ("at the pool! #pineapple #pool #summer #Summer2017 #pooltime", "at the pool! #pineapple #pool #pooltime"),
    ("Good #TiredTuesday morning to you both!", "Hello to you both!"),
    ("enjoying the #sunset at #washmo riverfront last night", "enjoying the time at #washmo riverfront"),
    # Neutral nouns where a phrase does not fit; a hedge goes with its time.
    ("Perfect day for ETA Summer Training.", "Perfect time for ETA Training."),
    ("A night with Morgan and Nicole was much needed.", "Time with Morgan and Nicole was much needed."),
    ("What a fabulous evening it has been", "What a fabulous time it has been"),
    ("it’s been a long day", "it’s been a long day"),  # round 6: how the day was, no date
    ("Someone go out to eat with me in like an hour", "Someone go out to eat with me"),
])
def test_round_five_shapes(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


@pytest.mark.parametrize(("post", "expected"), [
    # Round 6 (issue 18), from US Midwest posts outside every judged sample and the failures of the earlier samples:
    # the words a person would put where a time argument stood, instead of one neutral phrase.
    # A subject, also one the parser took for an adverbial, becomes "it" (a demonstrative "that", plural "they").
    ("July 22 needs to hurry tf up 😩", "It needs to hurry tf up 😩"),
    ("Happy birthday @user!!Hope today was great!! 😄", "Happy birthday @user!!Hope it was great!! 😄"),
    ("today's been the longest day of my life and it's not noon yet 🙃",
     "it's been the longest day of my life and it's not time yet 🙃"),
    ("those 36 minutes just made my day so much better", "that just made my day so much better"),
    ("Saturday's are for the girls and baseball ☀️☀️⚾️💜💙", "They are for the girls and baseball ☀️☀️⚾️💜💙"),
    ("If you dont know what Black Friday is gtfo of America", "If you dont know what it is gtfo of America"),
    ("Make today great", "Make it great"),
    ("Tomorrow at rotation is gonna blow... #TeamNoSleep", "Rotation is gonna blow... #TeamNoSleep"),
    # A stretch of time: "a while", "a bit", "some time", "far", or its number goes ("years since").
    ("Haven't seen Charli in two weeks", "Haven't seen Charli in a while"),
    ("Been almost 7months since I last swam.", "Been a while since I last swam."),
    ("It's been six years since @user and @user locked me in that closet.",
     "It's been years since @user and @user locked me in that closet."),
    ("My screening is just TWO HOURS AWAY. #BabyDriver", "My screening is A WHILE AWAY. #BabyDriver"),
    # Countdowns, last chances, time off, what is on or coming up, the time of a clause.
    ("83 days to my birthday!! Party at the Capitol", "Counting down to my birthday!! Party at the Capitol"),
    ("Last day to submit your registration forms for #fnnsdd5 !",
     "Last chance to submit your registration forms for #fnnsdd5 !"),
    ("Kinda wanna do something since I got the day off tomorrow lol",
     "Kinda wanna do something since I got time off lol"),
    ("SDD Vol. 4 is today!! Good luck to all crews!", "SDD Vol. 4 is on!! Good luck to all crews!"),
    ("Deadline is July 2nd! Winner receives Gold Bat!", "Deadline is coming up! Winner receives Gold Bat!"),
    ("Where was this in the 12 years I played baseball? https://t.co/tSMxNLiC55",
     "Where was this in the time I played baseball? https://t.co/tSMxNLiC55"),
    ("I fully 100% thought it was Sunday until just now.", "I fully 100% thought it was another day until just now."),
    # Clauses that only say when go with their conjunction; a greeting in one word says goodbye without the night.
    ("It's almost 10 pm and I am making coffee so that's how my day is going",
     "I am making coffee so that's how my day is going"),
    ("It's 2017 why am I listening to the Twilight soundtrack rn", "Why am I listening to the Twilight soundtrack rn"),
    ("its 5:30am and im blowing up tay's phone", "im blowing up tay's phone"),
    ("Gooooodnight guys.... jk lol", "Take care guys.... jk lol"),
    # A time with a place opening the sentence leaves the place; the parser's root time goes alone.
    ("This morning at a stoplight a robin landed on the hood of my car.",
     "At a stoplight a robin landed on the hood of my car."),
    ("Back to CR this weekend for Kristi's birthday!", "Back to CR for Kristi's birthday!"),
])
def test_round_six_rewrites(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


@pytest.mark.parametrize(("post", "expected"), [
    # Round 6: HTML entities and emoji are kept whole (never "&amp" or "amp;"), prepositions do not hang on emoji.
    ("Swear I'm in the mood to drive fast &amp; for a couple hours rn", "Swear I'm in the mood to drive fast"),
    ("Oh I most definitely did last night &amp; probably will tonight haha",
     "Oh I most definitely did &amp; probably will haha"),
    ("I'm out by 12:30 🤷🏽‍♀️ https://t.co/g2JzyxQ9zO", "I'm out 🤷🏽‍♀️ https://t.co/g2JzyxQ9zO"),
    ("Every Sunday 😇 https://t.co/IZUrk7ukaG", "😇 https://t.co/IZUrk7ukaG"),
    ("The paper I stayed up all night writing had the due date changed to the 29th",
     "The paper I stayed up writing had the due date changed"),
    ("I just don't know how not to, think about you, when it's late at night.",
     "I just don't know how not to, think about you, when it's late."),
    ("Midland: 9:22pm: sunset", "Midland"),
])
def test_round_six_debris(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


@pytest.mark.parametrize("post", [
    # Round 6: what looks like a time and is none stays as written (no content word lost from a post without time).
    "In his neck remains strength. Job 41:22 MEV",  # a verse
    "@user 2/4:  And the added significance of the investigation",  # a thread's part
    "Mr Bean pancake for breakfast made my day",  # an idiom
    "Man of the year https://t.co/plcUv2ftau",  # a title
    "Leg day has me sore as fuck 😭",  # a routine
    "La Arrolladora was the shit back in the day when they had German Montero",
    "Ion wanna fuck with nobody that's making 8$ an hour.",  # a rate
    "they've had a lottery pick 5 years in a row lol",  # a count
    "I am officially on hour 38 of no sleep",
    "who thought it would be super hilarious to write this so a min. wage worker would have to clean",
    "Can't stop dancing RN Interventional Radiology",  # a nurse, not "right now"
    "I hope you have a great day full of weird dance moves",  # how the day is, not which
])
def test_round_six_no_time_is_left_alone(anonymizer, post):
    assert anonymizer.transform([post])[0].text == post


@pytest.mark.parametrize(("post", "expected"), [
    # Round 8: where no rewrite fits and the post says something else, the sentence that holds the time goes whole.
    ("Sean Manaea opens the floodgates for Houston of this is 2016. Great job putting that fire out. #A's #Astros",
     "Great job putting that fire out. #A's #Astros"),
    # A clock with its zone stays a clock (a race time "1:35:10" is a duration); an adjective keeps its noun.
    ("2.7 earthquake occurred at 27 Jun 2017 14:57:53 UTC, 4 km N of Stroud, OK.",
     "2.7 earthquake occurred, 4 km N of Stroud, OK."),
    ("Hit abt 1:35:10 for 21km tdy! Overjoyed!", "Hit abt 1:35:10 for 21km! Overjoyed!"),
    ("@user When pregnant, my wife barfed over 125 times in one hour. That wasn't a good hour.",
     "@user When pregnant, my wife barfed over 125 times. That wasn't a good time."),
    ("drive a 2008 and im choppin on my blades.", "drive a 2008 and im choppin on my blades."),  # a car's model year
])
def test_round_eight_shapes(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


# Expressions that only say how long or how often stay by default (round 9: readers called posts with only these
# timeless, and cutting them broke sentences: "I only spent in college", "the most a while I've ever seen"). The
# strict mode (``keep_how_long=False``, the paper's setting) still cuts or rewrites them as before.
@pytest.fixture(scope="module")
def strict_anonymizer(anonymizer) -> TemporalAnonymizer:
    return TemporalAnonymizer(anonymizer.nlp, keep_how_long=False)


@pytest.mark.parametrize(("post", "expected"), [
    ("Paid respects to Mr Lee after 4+ hours of queuing.", "Paid respects to Mr Lee after queuing."),
    ("It's been a wonderful month having you guys around.", "It's been a wonderful time having you guys around."),
    ("Regret. Days slipping", "Regret. Time slipping"),
    ("Even if days are dark, our #coffee still is darker!", "Even if times are dark, our #coffee still is darker!"),
    (":: Its been a year already. We will nvr forget all our MOH", "We will nvr forget all our MOH"),
    ("Daily and Weekly Winners | S-One Expo http://t.co/fA7BotJt", "Winners | S-One Expo http://t.co/fA7BotJt"),
    ("First cup of coffee after a week without caffeine", "First cup of coffee after a while without caffeine"),
    ("8 minutes shy of the world's fastest mile! Whoa", "A bit shy of the world's fastest mile! Whoa"),
    ("Win Free Coffee For a Year https://t.co/tIMkjBfH2q", "Win Free Coffee https://t.co/tIMkjBfH2q"),
    ("Rest In Peace young Paco. Had a great 2.5 years with you 😥",
     "Rest In Peace young Paco. Had a great time with you 😥"),
])
def test_the_strict_mode_cuts_how_long_and_how_often_too(anonymizer, strict_anonymizer, post, expected):
    assert strict_anonymizer.transform([post])[0].text == expected
    assert anonymizer.transform([post])[0].text == post


@pytest.mark.parametrize("post", [
    # Round 8's held-out sample: what its reader found broken when these were cut.
    "Let this sink n 4 a few minutes! If truth b told",
    "i have unlimited data aka new girl marathon on the 12 hour ride home",
    "@user I'm the opposite of affluent and I only spent 1 year in college. Fuck you.",
    "I love that you take a week off every 7 weeks.",
    "A week went by, nothing. Still, no big deal.",
    "please be thankful for every minute you have ❤️",
    # Its posts without time that lost words: a stretch, a frequency, "day one", a shrug, a vivid memory.
    "This is the most beautiful 6 seconds I've ever seen https://t.co/Q9Dn533CE0",
    "every day* https://t.co/x65iudN6vT",
    "@user Matter of time? This was day one. https://t.co/2cSXysACAm",
    "Who has to climb tree to see what now ?? https://t.co/D4aBxK7u6T",
    "I remember like it was yesterday https://t.co/p51m6TUEOn",
    "2,100 children go missing every day. 1 child every 40 seconds.",
    "I've been trapped inside your heart shaped box for weeks",
    "When he travels an hour to see you at work he's a keeper😊😘",  # round 11: "to" hangs on "see", no countdown
])
def test_how_long_and_how_often_stay(anonymizer, post):
    assert anonymizer.transform([post])[0].text == post


@pytest.mark.parametrize(("post", "expected"), [
    # A stretch tied to now or to a date still goes: "ago", "in", "left", "until", an anniversary, a countdown
    # standing alone, an ordinal, a day part ("wee hours"), "this", "every Sunday".
    ("We moved here 2 years ago and love it", "We moved here and love it"),
    ("See you in a week", "See you"),
    ("3 days left until vacation!!", "Not long left until vacation!!"),
    ("the guy that's taking me to Hawaii on our 3 yr 🌸💜🐠🐢", "the guy that's taking me to Hawaii 🌸💜🐠🐢"),
    ("1 week ✈️ @user @user @user @user", "✈️ @user @user @user @user"),
    (":: First day of syawal. This is my family.", ":: Syawal. This is my family."),
    ("I go there every Sunday", "I go there"),
    ("I worked out this week", "I worked out"),
])
def test_how_long_tied_to_now_or_a_date_still_goes(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


@pytest.mark.xfail(reason="known miss (round 12): the parser leaves the year's preposition without a subtree to cut, "
                          "so 'In 2016' survives and 'ages 12' is taken for a time", strict=True)
def test_a_year_whose_unit_is_empty_is_still_removed(anonymizer):
    # This shape crashed the round-10 possessive rule (min() of an empty unit); it must at least not crash.
    (result,) = anonymizer.transform(["In 2016, 1,200 kids ages 12 or under have been hurt by dogs."])
    assert "2016" not in result.text and "ages 12" in result.text


def test_only_the_saying_keeps_yesterday(anonymizer):
    # "like it was yesterday" is a saying (round 9); "It was yesterday that ..." says when.
    saying, dated = anonymizer.transform(["I remember like it was yesterday", "It was yesterday that we met in Omaha"])
    assert saying.text == "I remember like it was yesterday" and "yesterday" not in dated.text


@pytest.mark.parametrize(("post", "expected"), [
    # Round 10, from the round-9 failures: a time's possessive before its noun leaves "the" where a determiner is
    # needed; "It's going on midnight and ..." goes like "It's almost 10 pm and ..."; what a cut leaves dangling goes
    # (an article before a link, "circa", the "+" of "3+"); "Made my night" keeps its idiom without the night.
    ("@user starting things out right with swag for tomorrow's All-American Experience at the @user",
     "@user starting things out right with swag for the All-American Experience at the @user"),
    ("Watching tonight's game with my dad", "Watching the game with my dad"),
    ("It's going on midnight and I've spent my evening making unicorn chow. I'm okay with this.",
     "I've spent my day making unicorn chow. I'm okay with this."),
    ("@user Me in Abel at 3 am on a Tuesday https://t.co/rJisaEk3jd", "@user Me in Abel https://t.co/rJisaEk3jd"),
    ("Wears Valley Farmers Market circa 2010  #farmersmarket #food",
     "Wears Valley Farmers Market #farmersmarket #food"),
    ("This is the first time in 3+ weeks I have gone a day without seeing @user",
     "This is the first time I have gone a day without seeing @user"),
    ("I didn't expect to hear that on a PG-13 show. Made my night.",
     "I didn't expect to hear that on a PG-13 show. Made my day."),
    ("Just wrapped up 27th book of the year, The Curse of Rocky Colavito by @user.",
     "Just wrapped up 27th book, The Curse of Rocky Colavito by @user."),  # counted in this year: no title
    # Round 11, from the round-10 failures: a day a verb's complement is about becomes "the day" (cutting it left
    # "Spent belting", "it made so much better"); "to" after a stretch is a countdown only when it hangs on the
    # stretch; a fraction is no date; a clock in UTC ("17:22:17Z") is a clock.
    ("Spent today belting my face off, so as a reward, I am giving myself ice cream😋",
     "Spent the day belting my face off, so as a reward, I am giving myself ice cream😋"),
    ("how beautiful it was and how it made monday so much better!",
     "how beautiful it was and how it made the day so much better!"),
    ("This is how I feel about Monday being over... @user", "This is how I feel about the day being over... @user"),
    ("I spent today at the beach", "I spent the day at the beach"),
    ("Kind of bummed that i drove three hours to Milford to see @user",
     "Kind of bummed that i drove three hours to Milford to see @user"),
    ("Only 10 days to go", "Not long to go"),
    ("even though I act like I hate you 1/3 of the time 🎉", "even though I act like I hate you 1/3 of the time 🎉"),
    ("WB9SKY-11 first detected 2017-06-28 17:22:17Z from Kankakee, IL 60901, USA (129m AGL).",
     "WB9SKY-11 first detected a certain time from Kankakee, IL 60901, USA (129m AGL)."),
    # Round 12, from the round-11 failures: a weekday with its adjective keeps them ("BEST DAY EVER", case kept); a
    # stretch that names what a noun is ("his 6 month doctors appointment") stays; a time subject the parser hung on
    # "hope" becomes "it"; "good night with friends" is a night described, not a greeting.
    ("@user BEST TUESDAY EVER!!!!!!!!!!!!! @user @user", "@user BEST DAY EVER!!!!!!!!!!!!! @user @user"),
    ("Jay bug had his 6 month doctors appointment today and is doing perfectly.",
     "Jay bug had his 6 month doctors appointment and is doing perfectly."),
    ("can only hope tomorrow never comes", "can only hope it never comes"),
    ("@user Monday is my first day 😬", "@user it is my first day 😬"),
    ("good night with good friends on the island https://t.co/VCwRm6oSU0",
     "with good friends on the island https://t.co/VCwRm6oSU0"),
    ("This is by far the best weekend of 2017 #ElectricForest #2017 #TimeToBallOut",
     "This is by far the best day #ElectricForest #TimeToBallOut"),  # "#2017" is a year
    # Round 13, from the round-12 failures (not yet measured on a fresh sample): a US zone after a cut clock goes
    # with it; "fall" before "asleep" is the verb; "night mode" is a setting.
    ("Colorado Rockies (+110) Game starts at 10:10 PM ET on ESPN. Good luck.",
     "Colorado Rockies (+110) Game starts on ESPN. Good luck."),
    ("Tryna fall asleep in that 😻", "Tryna fall asleep in that 😻"),
    ("i keep twitter on night mode that i forgot it was even white 😂",
     "i keep twitter on night mode that i forgot it was even white 😂"),
    # Round 14, from the round-12 failures and 257 development posts: a day subject before a copula and a thing
    # reads as a headline without both ("It is"/"This is" read as placeholders); a preposition, a conjunction with
    # adverbs or a framing word left by the cut goes; a part of a time ("the rest of the week") and a year are
    # subjects like a day; the object of "start"/"celebrate" goes before a phrase; a clause that only says when
    # after "and" goes; a person's evening is their day.
    ("Today is the last time I seen my boyfriend. Rest &amp; peace baby",
     "The last time I seen my boyfriend. Rest &amp; peace baby"),
    ("Tonight is a varsity only game at 6:00 vs SE Warren.", "A varsity only game vs SE Warren."),
    ("Reminder: Tomorrow is our Discount Card sales blitz from 11:00am-4:00pm. Meet @ the main HS entrance",
     "Reminder: Our Discount Card sales blitz. Meet @ the main HS entrance"),
    ("Today was a good day", "It was a good day"),
    ("I might've took a L the other night but definitely not tonight😂 shit has me rolling frfr😂",
     "I might've took a L😂 shit has me rolling frfr😂"),
    ("@user Who has more playoff wins since 2002 cowboys or Texans",
     "@user Who has more playoff wins cowboys or Texans"),
    ("Either the rest of the week is going to be long and hard or a breeze.",
     "Either it is going to be long and hard or a breeze."),
    ("Hate that my pool closes early on Monday's 😭", "Hate that my pool closes early 😭"),
    ("#LSU legend Warren Morris is at tonight's #CWS Finals game. https://t.co/hkyJYblYUV",
     "#LSU legend Warren Morris is at the #CWS Finals game. https://t.co/hkyJYblYUV"),
    ("Okay getting up at 4 am for work might suck", "Okay getting up for work might suck"),
    ("how the heck is June almost over already 😩", "how the heck is it almost over already 😩"),
    ("Is it 4:30 yet??", "Is it time yet??"),
    ("Yesterday I posted T1, so today here is E1, The Mover", "I posted T1, so here is E1, The Mover"),
    ("Starting the day with our last #SMCOG Board mtg of the fiscal year (@ Library Station in Springfield, MO)",
     "Starting with our last #SMCOG Board mtg (@ Library Station in Springfield, MO)"),
    ("Come celebrate the 4th of July with all of the zoo animals!", "Come celebrate with all of the zoo animals!"),
    ("It's already been a terrible horrible week and it's only Tuesday.",
     "It's already been a terrible horrible time."),
    ("Council @user approves 12 hr shift trial for Public Safety Officers beginning in July. #police",
     "Council @user approves 12 hr shift trial for Public Safety Officers. #police"),
    ("I just flipped off my mom so that's how my night is going.",
     "I just flipped off my mom so that's how my day is going."),
    ("BCA Rules Calcutta @ 8 p.m.🎱", "BCA Rules Calcutta🎱"),
    ("I'm going to take these last few days to do for the folks I'm leaving.",
     "I'm going to take some time to do for the folks I'm leaving."),
    ("Best night I've had in a long time 👌🏼", "Best time I've had in a long time 👌🏼"),
    ("Need new friends who will do things with me like go on late night Adventures and go to steak and shake",
     "Need new friends who will do things with me like go on Adventures and go to steak and shake"),
    ("2:14 am thoughts https://t.co/N9rewal8Vo", "thoughts https://t.co/N9rewal8Vo"),
    # Round 14 coverage: abbreviated weekdays before a part of the day, month/year dates, a season's year after
    # "of", plural weekdays and clock times in hashtags.
    ("Garth Brooks did so good sat night I can't stop watching", "Garth Brooks did so good I can't stop watching"),
    ("I hope you haven't moved since 9/2016 lol", "I hope you haven't moved lol"),
    ("The All New #HookahTuesdays Live From The #ProhibitionLounge", "The All New Live From The #ProhibitionLounge"),
    ("Spectacular walk. | #5amworkout #upbeforethesun", "Spectacular walk. | #upbeforethesun"),
    # An edition or a class by its short year, a broadcast's finale or premiere: tags of a dated event.
    ("dont miss my presentation in room lris/Lily #Kscope17 #orclapex",
     "dont miss my presentation in room lris/Lily #orclapex"),
    ("Great group at #NewHoot17! Ag Teachers are learning. #IAAE17 #TeachAg",
     "Great group! Ag Teachers are learning. #TeachAg"),
    ("Thoughts? Comment below ⬇️ #PLLFinale", "Thoughts? Comment below ⬇️"),
    ("Stoked for the new season of @user to start tonight!! #BB19", "Stoked for the new season of @user to start!!"),
    ("I've accidentally cut my finger TWICE in the past 2 hours then spilled bleach on the cut🙃",
     "I've accidentally cut my finger TWICE then spilled bleach on the cut🙃"),
    ("@user @user We will be back in Pratt come august 1st", "@user @user We will be back in Pratt"),
    ("Another day another afternoon arguing with children 🙃", "Another day arguing with children 🙃"),
    # Round 15, from the round-14 held-out failures: a cut where only "a certain time" was left (a clock or a date
    # the parser made an object, a fragment before "and"); a clause of its own after a copula keeps "the time"; a
    # thing that starts or ends "soon"; "Today's" before "My" is "It's".
    ("Anybody tryna go to workouts I'll be at Coe bout 9:30", "Anybody tryna go to workouts I'll be at Coe"),
    ("@user flight contingency for July 1st strike, I leave July 8th from Houston after 10 months of planning",
     "@user flight contingency for strike, I leave from Houston after 10 months of planning"),
    ("2:32 and all alone", "all alone"),
    ("I think this is going to be the summer where I finally cut my hair short.",
     "I think this is going to be the time where I finally cut my hair short."),
    ("Promo code: GOCAMPING Offer ends tomorrow: go go go!", "Promo code: GOCAMPING Offer ends soon: go go go!"),
    ("Big Brother starts tonight! 😍", "Big Brother starts soon! 😍"),
    ("Iss Crazy That Today's My B-Day, Yet It Doesn't Seem As If It Is.",
     "Iss Crazy That It's My B-Day, Yet It Doesn't Seem As If It Is."),
])
def test_later_round_shapes(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


@pytest.mark.parametrize("post", [
    # Round 10: no time here (a grade, always, an idiom, luck, an anniversary of a life stage in a noun phrase).
    "awh yay mom is letting me do my senior year in duncan 😊",
    "These place sell fireworks all year round Texas so wack",
    "Found kittens in my horse shed... Day made 🙌🏻☺️",
    "Just won some fireworks from a @user game! Must be my lucky day! 🎇🎆",
    "THE BEST 3 YEARS OF MY LIFE!!! I will never forget this amazing group of girls.",
    # Round 12: sayings, sizes, tickets and distances are no times.
    "@user nooo it's just hard to find 00/0 in stores",
    "It's 5 pm somewhere 🍸✌🏾 @ Santo Coyote - LR https://t.co/Vsxe3VmYyn",
    "There's always tomorrow tigers.",
    "Buy one weekend pass, get three free! Can't beat that deal!",
    "@user bout 2 hours from Amarillo!",
    # Round 12's posts without time that lost words: a question of how long, a stretch after an event, good days.
    "@user wonder how many seconds I just wasted reading that tweet",
    "hate that it takes me a couple days after hard boozing just to feel normal",
    "&amp; take advantage of your good days",
    # Round 14: people named for months, a wish, scores, future people, hot springs, a stretch of distance or length.
    "June said she's painting me something for my birthday.",
    "BUT they always call April name first 🙄",
    "Send happy day to @user",
    "YOU CANT LIKE ONLY 4/5 SIT YOUR ASS DOWN",
    "Found some future graffiti artists! #bgmdelta",
    "youll have to pry this hot spring from my cold dead hands",
    "why do straight people consider living 30 minutes away a long distance relationship? 😂💀",
    "Transformers age of extinction is 3hrs and 30 minutes long",
    "Tom is the GOAT #TB12 #Catch22",
    "It's been a hot minute since I've sent you one😩",
    "Blessed to see another year 🤘🏽🍾 @ Omaha, Nebraska",
    "You're not promised tomorrow",
    "I believe he like me spazzing out ! 😉 not today baby ! Not today !",
    "Am I allowed to go through my angsty teenage phase in my last year of college?",
    "Actually I'm in my second year of college with braces",
    "Why are mornings a thing",
    "went from talking every night to not talking at all....",
    "@user @user Tell me more about how that march will work.. you poor, sad snowflake",
    "Every Pal Tweet this to let Ben and Jerrys see that England wants Tonight Dough!!!",
    "Awan background info in Daily Caller. @user",
    "I'm slowly becoming a morning person",
    'when I hold him and say "night night" he starts patting mine',
    "Want something real, not a one night stand",
    "and i would have 10/10 took them if it wasn't considered kidnapping",
])
def test_later_rounds_no_time_is_left_alone(anonymizer, post):
    assert anonymizer.transform([post])[0].text == post
