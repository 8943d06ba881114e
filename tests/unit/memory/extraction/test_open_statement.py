"""Open statements (memory/extraction/open_statement.py): what a user says of themself in any
phrasing is kept verbatim; requests, questions, pasted text, role-play, other people and passing
states leave nothing lasting; an instruction about the answer at hand holds for the session; a
statement bound in time ends when it says."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotstream.memory.extraction import RuleExtractor, Turn, open_statement
from slotstream.memory.extraction.open_statement import lasting_statements, one_off, time_bound
from slotstream.memory.semantics import lasting_model

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday


def records(text: str) -> list[dict]:
    turn = Turn(tenant="t", user="u", session="s1", text=text, at=AT, turn_id="t1")
    return [p.record for p in RuleExtractor().extract(turn).items if p.record is not None]


def _letters(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def lasting(text: str) -> list[dict]:
    return [r for r in records(text) if not r["scope"].startswith("session:")]


@pytest.mark.parametrize(
    "text",
    [
        "I have a strong aversion to cilantro, it tastes like soap to me.",
        "I refuse to fly budget airlines after last year.",
        "Comfort over style, always.",
        "When I travel I always pick places I can walk everywhere.",
        "Only ever buy secondhand furniture, it's a values thing.",
        "说实话我不太能接受太吵的餐厅",
        "出差的时候我一般不安排任何内部会议",
        "受不了排队，再好吃的店要排队我也不去",
        "I'm pregnant, about 14 weeks along now.",  # a count and "now": no correction, a statement
        "Strong perfumes give me a headache so I go for unscented everything.",
        "i used to lift heavy but these days i'm way more into yoga and mobility",
        "我乳糖不耐，喝牛奶就拉肚子，酸奶倒还行",
        "跟客户吃饭的话一般都订包间，方便说话",
        "家里有两只猫，还有个一岁多的宝宝，买啥都得先考虑安全",
        "我在腾讯做后端开发，平时主要写Go",  # somewhere, and what the user does there
        "特别爱吃辣，菜里没辣椒就觉得没味道",  # a stance without its subject
        "scary movies are a hard no for me, I can't sleep for days after",  # a passing state, lastingly
        "I always pack a paper map ever since I got stuck in the mountains without signal",
        "我腿脚不方便坐轮椅，没电梯的老小区基本上不去",  # 没电梯 is no flat battery
        "I always check today's specials before ordering",  # a word of time, lastingly
        # one of the user's things and a value that says what it is
        "my grant application deadline is May 15",
        "our budget for the kitchen reno is 15k, hard ceiling",
        "今年想把体脂降到20以下",  # a number's "以下" (below) introduces no material
        "Every Friday night I run D&D for the same group, four years strong now.",  # a game, no part
        "i don't follow american football at all, never understood it",
        # a condition named, with no subject or told as something that happened, stays
        "pregnant, second trimester",
        "red-green colorblind",
        "had a DVT after a long-haul flight two years ago and I'm on blood thinners now",
        "have a pacemaker, my cardiologist told me to keep phones and magnets away from my chest",
        "怀孕五个月了",
        # a tool named by someone learning it, or beside the user's own habit: the user's
        "在自学Python，想转数据分析，现在学到pandas了",
        "从小数学就烂 一看到公式就头大 有点恐惧",
    ],
)
def test_a_lasting_statement_in_any_phrasing_is_kept_verbatim(text: str) -> None:
    kept = lasting(text)
    assert kept, text
    # (clauses are joined with a comma where the user wrote none)
    assert any(_letters(r["value"]) in _letters(text) for r in kept)


@pytest.mark.parametrize(
    "text",
    [
        "Write a python function that reverses a string.",  # a request
        "What's the tallest mountain in Europe? I keep hearing different answers",  # a question
        "Summarise this:\nI love hiking and I hate cold weather, said the narrator.",  # pasted
        "you are Sherlock Holmes. I walk in with mud on my boots. what do you deduce",  # role-play
        "My sister is vegan, what should I cook for her birthday?",  # someone else
        "我闺蜜乳糖不耐受，给她订生日蛋糕怎么选",
        "I'm sitting in the dentist waiting room, tell me a fun fact",  # a passing state
        "开了一天会脑子转不动了，说简单点",
        "what's the capital of Australia? always forget if it's Sydney",
        "im in a rush, just give me the command to unzip a tar.gz",
        "coworker is allergic to shellfish, any seafood place alternatives?",
        "Play a customer service bot. I'll be a passenger who is allergic to everything on the menu.",
        "租房押金一般多久能退回来",
        "我侄女特别喜欢恐龙，周末带她去哪个博物馆好",
        "我演一个对猫毛过敏的租客 你演房东 咱俩练练砍价",
        "Draft a thank-you note to my landlord, warm but short, under 80 words",  # for that piece
        "write me a limerick about tax season. answer in Spanish please",
        "what's the difference between a roth and a traditional IRA, short answer",
        "Rewrite this in plain English: 'We have decided to discontinue the premium tier.'",  # quoted
        "Be a grumpy landlord who won't return my deposit. I'll argue for it.",
        "Act like a travel agent for a budget airline. I'll ask about refunds.",
        "our team lead insists on squash merges, can git do that by default?",
        "My 6 year old refuses to wear socks. Tips?",
        "我们家阿姨只会说四川话，帮我翻几句",
        "这周在家带娃，回复会慢",
        "下周要答辩，今天先帮我理一下提纲",
        "我们来演一段，我是顾客，你是店员",
        # someone else's matter, set up for a request about them
        "My brother's a huge F1 fan, what are some good books about it for xmas",
        "my friend Leo hates surprises, but we want to do something for his 40th. ideas?",
        "我姐是纯素食者，周末她来我家吃饭，做点什么好",
        # an instruction that opens with its verb and says nothing beyond the answer at hand
        "give the answer first, then the reasoning",
        "cut it down to 100 words",
        # or with a bare constraint on it
        "Under 100 words, please.",
        "in one sentence please",
        "控制在一百字以内",
        "分步骤说明",
        # a question without its mark
        "水烧开以后再烧会不会有毒",
        # a quote opened after a colon or a question, apostrophes and all: someone else's words
        "my roommate asked me to make her dating bio funnier: 'I'm a vet tech, I love hiking and trying new "
        "ramen places, and I never say no to karaoke'",
        "my mom texted me this, what does she mean?? 'I'm fine. I just think I'd have liked to know earlier.'",
        "The in-laws don't eat pork. Any good Sunday roast alternatives?",
        "家里阿姨是四川人，特别能吃辣，我想给她过个生日，订什么餐厅好",
        "lol that's a terrible pun. love it",
        "年会主持词开场白帮我写一段，喜庆点，公司是做物流的",
        # the set-up of a question that names no one, material after the words pointing at it
        "Excel里VLOOKUP一直返回#N/A，两个表的工号明明是一样的，怎么回事",
        "帮我把这段博客翻成英文：我第一次去冰岛是2019年冬天，我租了辆四驱车，沿着一号公路开了十天。",
        "现在在外面只有手机，表格就别发了，文字说就行",
        "我老公是左撇子，想给他买个好用的鼠标",
        # an instruction after "now", a client's way, a set-up, a colloquial question
        "now give me the same thing but as a numbered list",
        "我们甲方喜欢那种很正式的汇报格式，有模板吗",
        "设想一下我是一个刚到日本的留学生，什么都不懂，第一周要办哪些手续",
        "docker compose起mysql的时候一直报错 连不上 咋回事",
        "用shell写个定时备份，每天凌晨三点把/data打包传到另一台服务器上",
        "my wifi is down so I'm on hotspot, keep it text only no links",
        "in a meeting, can't talk, just give me a one-line definition of churn",  # of the moment
        # where the user is now
        "现在手机快没电了，先告诉我最近的地铁站怎么走，我在人民广场",
        "帮我推荐个饭后散步的路线，我在春熙路附近",
        # of the day, said with its possessive; thanks
        "for today's presentation I want to sound confident — any quick tips in the next 10 min?",
        "ok today's the day I clean out the garage, motivate me",
        "I owe you one 😄",
        # no value that says what it is, or no owner
        "my code's return value is 42",
        "the report for the Q1 review is due March 27",  # no owner
        # an instruction for the work at hand without a verb first, or a piece of writing by its name
        "Start over, but make it rhyme",
        "don't reword the intro, just show me what you'd cut",
        "just give me the command, no explanation",
        "Limerick about a cat who hates Mondays, please.",
        # a reaction to the answer or to the assistant
        "I love that answer lol",
        "I love talking to you",
        # material named before a colon: its first person is its writer's
        "这是上周的会议记录 帮我整理成待办：老王：我周三前把合同发出去 小李：我负责跟进物流 下周一给反馈",
        # a day's event, the moment, a question, something done
        "我在准备周四的面试，帮我模拟几个问题",
        "我现在心情不好，你别跟我讲大道理",
        "乳糖不耐受和牛奶过敏有啥区别",
        "行了，我自己弄好了",
        "服务器时间不对，怎么改成UTC",
        # about the assistant; someone's words quoted after a colon; a fiancée; a part to play
        "You're way funnier than my coworkers lol",
        "豆瓣上有人写：“我从来不吃早饭，一直这样，身体好得很。”这种说法对吗？",
        "我未婚妻对猫毛过敏，养什么宠物好？",
        "你是一只只会说冷笑话的企鹅，我是来动物园参观的游客",
        "两小时后要开会，帮我理一下要点",
        # an aunt's needs; agreement and nothing else; just out of a meeting; a title to write
        # to; an instruction for the steps at hand; a cron expression
        # quotes to classify; this week; a babysitter; steps to stop after; a question set up; me
        # in a story; a character; a reaction; the assistant
        'Classify the sentiment of these: 1) "I always cry at the end of Toy Story 3" 2) "I love my new bike"',
        "this week I'm swamped so I need dinners that take 10 min max",
        "our babysitter is allergic to dogs, should I keep the dog in the yard while she's here?",
        "stop after step 3, I'll ask for the rest later",
        "I never understood how tides work, can you explain?",
        "write as if you're me in 2050, I've moved to Mars and I hate the food",
        "for my D&D character: she's a halfling bard who never drinks and loves riddles, give her a backstory",
        "I hate when that happens lol",
        "warfarin and vitamin K, how do they interact?",  # a condition named as the question's topic
        "you always know what to say haha",
        "我小姨拄拐杖 北京哪些景点方便",
        "我也是哈哈",
        "不太对，再试一次。",  # a reaction, then a request
        "我同学用Linux，老劝我也换，Linux到底好在哪？",  # a classmate's habit sets up a question
        "听说东京是世界上最大的都市圈。",  # hearsay
        "刚开完会头都大了，直接给结论就行",
        "以“细节决定成败”为题，帮我写个议论文的开头段落",
        "每一步后面附上原因",
        "定时任务cron表达式：工作日早上6点半执行，周末不执行",
        # a tool or a piece of data named with work asked of it: the code at hand
        "用pandas建个表：1号受访者喜欢喝茶 2号喜欢咖啡 3号都讨厌",
        "Excel公式：C列写着“过敏”而D列是空的 就标红",
    ],
)
def test_chat_that_says_nothing_lasting_about_the_user_leaves_nothing_lasting(text: str) -> None:
    assert lasting(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "Say it again but in under 50 words",
        "explain step by step",
        "再短一点",
        "上面那段改成正式一点的语气",
        # a piece of writing asked for by its name: how to write it is about that piece
        "Tweet announcing a bakery's new opening hours (7am-3pm, closed Mondays). Upbeat, under 280 characters.",
        "Intro paragraph for a blog post on why sourdough starters fail. Conversational, no more than 100 words.",
    ],
)
def test_an_instruction_about_the_answer_at_hand_is_for_the_session(text: str) -> None:
    assert one_off(text, text)
    assert lasting(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "From now on, keep answers short.",
        "以后回答都简短一点",
        "I prefer bullet points.",
        "When I'm tired I skip the gym, so I keep my workouts short.",  # a conditional, not a question
    ],
)
def test_a_word_of_lasting_or_of_stance_keeps_an_instruction(text: str) -> None:
    assert not one_off(text, text)
    assert lasting(text)


def test_a_bare_constraint_lasts_when_it_names_every_answer() -> None:
    assert lasting("Under 100 words, please.") == []
    assert [r["attribute"] for r in lasting("Max 50 words per reply, please.")] == ["preference.response.length"]
    assert [r["attribute"] for r in lasting("Under 100 words for every answer.")] == ["preference.response.length"]


def test_a_short_quote_of_the_users_own_and_a_liking_said_at_length_are_kept() -> None:
    assert lasting("My motto: 'never check a bag' — carry-on only, always.")
    # a stance said before a question is kept (the lasting model reads the whole turn as a
    # request, and spares the stance it opens with)
    assert lasting("受不了排队，附近有啥不用排队的店吗")
    assert lasting("心情不好的时候我就一个人戴耳机听民谣，听着听着就缓过来了")
    assert lasting("I grew up on Bollywood and Punjabi music and I still love it more than anything on the charts.")


def test_someone_else_is_remembered_when_the_user_states_it_not_when_a_request_sets_it_up() -> None:
    assert [r["attribute"] for r in lasting("I have two kids, Mia and Leo.")] == ["profile.family"]
    assert lasting("My wife is allergic to shellfish, so we never cook it at home.")
    assert lasting("My wife is allergic to shellfish, what can I cook for her birthday?") == []


def test_a_sentence_about_no_area_continues_the_one_beside_it() -> None:
    # "Tried it once ..." alone would agree a little with every request: it joins its sentence
    kept = lasting("I don't do hostels. Tried it once in my 20s, never again.")
    assert [r["statement"] for r in kept] == ["I don't do hostels. Tried it once in my 20s, never again."]
    kept = lasting("Needles freak me out. Like, I've fainted during blood draws twice.")
    assert [r["statement"] for r in kept] == ["Needles freak me out. Like, I've fainted during blood draws twice."]
    # two statements each about an area of their own stay apart
    kept = lasting("I never fly budget airlines. I only drink oat milk.")
    assert len(kept) == 2


@pytest.mark.parametrize(
    "text,attribute",
    [
        ("听歌我只用正版，盗版资源是不碰的", "preference.stated.music"),  # how the user lives, not a team decision
        ("文档平台我选了飞书。", "knowledge.decision.文档平台"),
        ("相比五星酒店，我更喜欢那种带厨房的公寓式酒店，住得久的话能自己煮点东西", "preference.stated.food"),
    ],
)
def test_chinese_only_use_and_stay_long_are_read_for_what_they_are(text: str, attribute: str) -> None:
    assert [r["attribute"] for r in lasting(text)] == [attribute]


@pytest.mark.parametrize(
    "text",
    [
        "Gyms intimidate me, all the mirrors and grunting guys.",
        "Window seat person through and through.",
        "家里装修走的是极简风，东西越少越好",
        "大油皮 夏天俩小时就脱妆",  # terse Chinese
    ],
)
def test_words_of_no_known_stance_are_kept_when_the_lasting_model_is_sure(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no rule reads a stance in them; the lasting model reads them as lasting almost surely
    assert lasting_statements(text) == []
    assert [r["attribute"].split(".")[0] for r in lasting(text)] == ["preference"]
    monkeypatch.setattr(lasting_model, "STATED_IN_OTHER_WORDS", {"en": 1.01, "zh": 1.01})
    assert lasting(text) == []


def test_a_turn_with_a_secret_keeps_nothing_in_other_words() -> None:
    text = "Window seat person through and through. password: hunter2hunter2"
    turn = Turn(tenant="t", user="u", session="s1", text=text, at=AT, turn_id="t1")
    out = RuleExtractor().extract(turn)
    assert [p.record for p in out.items if p.record is not None] == []
    assert "secret_value" in out.refused


@pytest.mark.parametrize("text", ["早上好呀", "晚安～", "Start over, but make it rhyme"])
def test_chat_the_lasting_model_reads_as_chat_is_not_kept_in_other_words(text: str) -> None:
    assert records(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "perfect, thank you so much!!",
        "Happy new year!!",
        "谢谢啦！",
        "新年快乐～",
        # words with no subject beside a request are its detail, not the user's
        "Write a best man toast, funny but not embarrassing, about 2 minutes. Groom is Dan, obsessed with "
        "fishing, met the bride at a pub trivia night.",
    ],
)
def test_courtesies_and_a_requests_detail_are_not_kept_in_other_words(text: str) -> None:
    assert records(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'Write a fake restaurant review in the voice of a snobby critic, opening with "I\'m allergic to mediocrity..."',
        'Need a Rust function that parses "I love X" and "I hate X" sentences into a sentiment enum, for a toy demo.',
    ],
)
def test_words_in_the_first_person_quoted_for_a_task_are_material(text: str) -> None:
    assert records(text) == []


def test_a_condition_named_before_a_question_of_its_own_is_kept() -> None:
    # the question is a sentence of its own: it does not ask about the condition
    text = "T1 diabetic w/ an insulin pump and a dexcom, fyi. anyway can you recommend a good carry on suitcase?"
    assert [r["statement"] for r in lasting(text)] == ["T1 diabetic w/ an insulin pump and a dexcom, fyi."]
    # asked in the same sentence, it is the question's topic
    assert records("warfarin and vitamin K, how do they interact?") == []


@pytest.mark.parametrize(
    "text",
    [
        "grandpa is 88 and never uses a smartphone, what's the simplest phone for him",
        "My teammate is red-green colorblind. Which chart palettes work for our deck?",
        "Draft a best man toast. The groom always burns toast, use that as a running joke.",
    ],
)
def test_a_grandparent_a_teammate_and_a_groom_are_someone_else(text: str) -> None:
    assert records(text) == []


def test_the_user_speaking_of_themself_beside_a_quote_is_still_read() -> None:
    text = 'I am allergic to peanuts. My sister always says "I could never live like that", can you suggest a snack?'
    assert [(r["attribute"], r["value"]) for r in records(text)] == [("profile.allergies", "peanuts")]


@pytest.mark.parametrize(
    "text",
    [
        "walk my dog 3 times a day, 6am, noon and 9pm",  # read as lasting from 0.9
        "Cats over dogs forever, sorry dog people.",  # people named after the stance: still the user's
        "hearing impairment, so audio-only learning just doesn't work for me",  # "doesn't work for me": a stance
        "对甲醛特别敏感，新家具一进门就咳嗽起疹子",  # a cough each time: a rule, not the moment
        "每天四点半要去接孩子，四点以后的会我都参加不了",  # the child picked up is no subject
        # a state inside a condition is what happens each time, not the moment
        "if I sleep less than 7 hours I get a migraine, it's basically clockwork",
        "I use a wheelchair for anything beyond short distances, so cobblestones and stations without lifts are "
        "a real problem when I'm away",
    ],
)
def test_what_holds_for_the_user_is_kept_in_other_words(text: str) -> None:
    assert [r["value"] for r in lasting(text)] == [text]


def test_a_day_of_the_week_is_a_habit_or_an_end_not_always_an_event() -> None:
    (rec,) = lasting("这几天在吃头孢 到周五为止 别给我推荐带酒的菜")
    assert rec["valid_until"] == "2026-03-07T00:00:00Z"
    assert [r["value"] for r in lasting("火锅真的是我的命，一周三顿都不腻")] == ["火锅真的是我的命，一周三顿都不腻"]


def test_a_statement_bound_in_time_ends_when_it_says() -> None:
    assert time_bound("No alcohol until Friday, doing a reset.", AT) == datetime(2026, 3, 7, tzinfo=UTC)
    assert time_bound("这周我不吃甜的", AT) == datetime(2026, 3, 9, tzinfo=UTC)
    assert time_bound("I'm vegetarian.", AT) is None
    (rec,) = lasting("这周我不吃甜的，在控糖")
    assert rec["valid_until"] == "2026-03-09T00:00:00Z"


def test_spans_are_cut_at_requests_and_kept_as_written() -> None:
    spans = lasting_statements("I'm a vegetarian and I hate mushrooms. Can you suggest a dinner for tonight?")
    assert spans == ["I'm a vegetarian and I hate mushrooms."]


def test_a_turn_the_quick_look_passes_over_keeps_nothing() -> None:
    # `may_state` only skips the reading where no span could be kept: checked on every corpus line
    from slotstream.eval.corpus import corpus_path
    from slotstream.memory.extraction.open_statement import may_state

    lines = [
        json.loads(line).get("statement") or json.loads(line).get("text") or ""
        for path in sorted(corpus_path("open_language_dev").parent.glob("*/*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    skipped = [t for t in lines if t and not may_state(t)]
    assert len(skipped) > 100
    assert [t for t in skipped if lasting_statements(t)] == []


def test_a_chinese_no_matter_what_or_still_is_no_question() -> None:
    # "不管什么场合" asks nothing, and "还是吃的" is "still eat": the diet lasts
    for text in (
        "我戒酒两年多了，现在不管什么场合一滴都不碰，谁劝都没用",
        "我吃素七年了，主要是不想伤害动物，蛋和奶还是吃的",
    ):
        assert "profile.diet" in [r["attribute"] for r in lasting(text)], text
    # a choice offered, and a question word, still ask
    assert lasting("喝咖啡还是茶") == [] and lasting("这个怎么弄") == []


@pytest.mark.parametrize(
    "text", ["pregnant, second trimester", "red-green colorblind", "怀孕五个月了", "I've had a pacemaker since 2021."]
)
def test_a_condition_named_alone_is_kept_as_safety_relevant(text: str) -> None:
    assert [r["attribute"].split(".")[0] for r in lasting(text)] == ["health"]


@pytest.mark.parametrize(
    "text",
    [
        "bedtime story about a dragon who is allergic to fire",
        "Short story please: a girl who is allergic to sunlight meets a boy who never sleeps.",
        "SQL: find customers who have never placed an order.",
    ],
)
def test_a_stance_of_someone_described_is_theirs(text: str) -> None:
    assert lasting(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "really dislike doctors who rush, I want someone who actually explains things",
        "allergic to sesame, which is super annoying bc it's in everything",
        "Bare surfaces, almost nothing on the walls, that's my happy place.",
    ],
)
def test_a_clause_describing_someone_or_a_judgement_leaves_the_users_own_stance_standing(text: str) -> None:
    assert len(lasting(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "I need a eulogy template, respectful, about 3 minutes when read aloud.",
        "newsletter blurb for our book club's May pick",
        "cron expression for every weekday at 7:30am, and one for the 1st of every month at midnight",
        "Dockerfile for a Node 20 app that runs as a non-root user and only installs production deps.",
    ],
)
def test_a_piece_of_work_asked_for_by_its_name_is_a_request(text: str) -> None:
    assert lasting(text) == []


@pytest.mark.parametrize(
    "text",
    ["I love this, thank you", "omg thank you so much!!!", "That was a terrible pun and I hate that I laughed"],
)
def test_a_reaction_to_the_last_answer_is_not_about_the_user(text: str) -> None:
    assert lasting(text) == []


def test_a_judgement_after_a_statement_is_still_the_users() -> None:
    # "that's my rule" closing a statement is not a reaction to the last answer
    text = "Gifts come from small businesses only, that's my rule."
    assert [r["statement"] for r in lasting(text)] == [text]
    assert lasting("ok that's hilarious") == []


@pytest.mark.parametrize(
    "text",
    [
        '写个React用户卡片组件，包含头像、昵称和签名（比如"我喜欢爬山，讨厌广告"）',
        '写一个HTML表单，选项有"我吃素""我吃全素""我什么都吃"',
        '这个淘宝评价是不是刷的？"超级喜欢！！！每天都用，我皮肤敏感也不过敏，五星好评！！！"',
    ],
)
def test_chinese_words_in_the_first_person_quoted_for_a_task_are_material(text: str) -> None:
    assert records(text) == []


def test_the_user_speaking_of_themself_beside_a_chinese_quote_is_still_read() -> None:
    text = '我对花生过敏，朋友总说"我从来不挑食"，帮我推荐零食'
    assert [(r["attribute"], r["value"]) for r in records(text)] == [("profile.allergies", "花生")]


@pytest.mark.parametrize(
    "text",
    [
        "I have limited use of my left hand, so I need games that let me fully remap controls.",  # a side, no past
        "aiming for my first unassisted pull-up by summer",  # an adjective in -ed
        "I get my brows threaded every three weeks like clockwork.",  # done as a rule
        "had ACL reconstruction on my left knee last year and I'm still not cleared for jumping",  # still holds
        "birds as pets, no thanks, the noise drives me up the wall",  # a refusal, not a courtesy
        "60ish houseplants in a 2 bed flat, it's a jungle and I love it",  # a liking of what it just said
        "treadmills are torture, I feel like a hamster on a wheel",
    ],
)
def test_a_side_an_adjective_a_consequence_and_a_liking_said_after_are_no_passing_event(text: str) -> None:
    assert len(lasting(text)) == 1


@pytest.mark.parametrize("text", ["no thanks", "I love it here!", "I love it, thank you"])
def test_a_courtesy_or_a_reaction_alone_is_not_kept(text: str) -> None:
    assert lasting(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I watch everything on my phone on the train, 45 minutes each way.",
        "no laptop, I do everything on my phone",
        "I can't sleep with even a sliver of light in the room, so blackout curtains are non-negotiable for me.",
        "so tired of true crime docs, they feel exploitative to me",
    ],
)
def test_a_place_or_a_state_said_of_what_the_user_does_is_a_habit(text: str) -> None:
    assert len(lasting(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "on my phone, so keep the answers short",
        "I'm on the train with bad signal, so no videos please",
        "stuck at the airport, what can I do for 4 hours",
        "so tired, can't think straight",
    ],
)
def test_a_place_the_user_is_at_or_a_state_they_are_in_now_is_the_moment(text: str) -> None:
    assert lasting(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "no health insurance right now, between jobs, so the ER is a last resort",
        "I'm on chemo right now, and my oncologist says no reptiles or birds in the house",
        "money's super tight rn with student loans so anything tech I buy has to be cheap or secondhand",
    ],
)
def test_right_now_said_of_a_circumstance_holds_beyond_the_session(text: str) -> None:
    assert [r["scope"] for r in lasting(text)] == ["global"]


@pytest.mark.parametrize(
    "text",
    ["I have a migraine right now, so no screens please", "money's tight right now, what's a cheap dinner tonight?"],
)
def test_an_episode_or_a_circumstance_said_with_tonight_is_the_moment(text: str) -> None:
    assert lasting(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I will not fly Ryanair again. Ever. Not after what happened in Bergamo.",
        "I love houseplants, I've got about 40 of them at this point lol",
        "Reality TV is my guilty pleasure — Love Island, Below Deck, all of it.",
        "my company caps lodging at $180 a night, anything above that comes out of my pocket.",
    ],
)
def test_again_above_below_and_this_point_said_of_the_user_are_no_answer_at_hand(text: str) -> None:
    assert lasting(text) and {r["scope"] for r in lasting(text)} == {"global"}


@pytest.mark.parametrize("text", ["explain it again but shorter", "summarize the text below: we met on Monday"])
def test_an_answer_asked_again_or_material_below_is_for_the_moment(text: str) -> None:
    assert lasting(text) == []


def test_where_the_user_is_with_what_follows_from_it_is_where_they_live() -> None:
    text = "I'm in Canada, so a lot of US deals don't ship here or get killed by duties."
    assert [r["statement"] for r in lasting(text)] == [text]
    # where the user is, and a question: nothing lasting
    assert lasting("I'm in Tokyo, so what should I eat tonight?") == []


def test_a_lead_in_asking_to_take_note_introduces_a_statement() -> None:
    assert len(lasting("Please know I've got pretty serious health anxiety.")) == 1
    assert lasting("please note the deadline moved to Friday") == []


@pytest.mark.parametrize(
    "text",
    [
        "DM mode: I'm a dwarf warrior who hates elves and loves gold. Start the adventure.",
        "simulate a job interview for a nurse position. I'm the candidate, ask one question at a time",
        "Okay I take it back, that joke was good",
        "wait are you always this cheerful or is it just me",
        "A guy on my team microwaves fish in the office kitchen every single day. Petty to say something?",
        "Tone it down, it sounds like I'm yelling.",
    ],
)
def test_a_character_a_mock_interview_a_reaction_and_someone_else_keep_nothing(text: str) -> None:
    assert lasting(text) == []


def test_a_game_the_user_plays_is_still_theirs() -> None:
    assert len(lasting("I play a rogue in our D&D campaign every Thursday")) == 1


@pytest.mark.parametrize(
    "text",
    [
        "我超爱你的回答哈哈",
        "救命，你真是我的救星",
        "你是侍酒师，我是一个说讨厌红酒的客人，说服我",
        "演一个客服，我是快递一直没到的愤怒顾客",
        "对象特别讨厌香菜，做饭用什么代替",
        "宿醉中……用最简单的话给我讲讲复利",
        "用第一人称写一篇日记，主人公是一个从来不说谎的小学生",
    ],
)
def test_chinese_about_the_assistant_a_role_someone_else_a_hangover_or_a_piece_of_work_keeps_nothing(text: str) -> None:
    assert lasting(text) == []


def test_a_chinese_childs_age_is_still_the_users_household() -> None:
    assert len(lasting("家里有个三岁的娃，刚会爬上爬下，啥都往嘴里塞")) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Got 4 kids and a big dog so three rows minimum.",  # what the user has, not what happened
        "I have hypertrophic cardiomyopathy and my cardiologist said no intense exertion. Ever.",
        "When I'm traveling I find a local yoga class instead of using the hotel gym.",  # a class of life
        "I always buy the cheapest version of something first and only upgrade if it breaks.",
    ],
)
def test_what_the_user_has_a_doctors_standing_advice_and_words_of_everyday_life_are_kept(text: str) -> None:
    assert len(lasting(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "I don't love the second draft, it's too wordy.",
        "case study for my nursing class: patient is diabetic and on a cruise, what would a safe meal plan look like?",
        "I have a static method that can't access self, is that expected?",
    ],
)
def test_the_writing_or_the_code_at_hand_keeps_nothing(text: str) -> None:
    assert lasting(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'classify these as positive / negative / neutral: 1) "I love the new dashboard" 2) "I hate the logouts"',
        'write unit tests for my allergy checker, use test data like user says "I\'m allergic to peanuts"',
        "fix my SQL: INSERT INTO reviews (text) VALUES ('I don't like the food'); it breaks on the apostrophe",
        "Character sheet for a D&D bard: loves gossip, hates silence, allergic to cats (comedic)",
        "For practice, interview me as if I'm a celebrity chef who hates truffle oil",
        "I'm freezing, the office AC is on full blast again",
        "ok I hate how good that is",
        '房东发来的微信，我该怎么回？"我一般只在晚上回消息，白天别打电话。"',
        "我超爱这个回答哈哈",
    ],
)
def test_material_a_character_a_practice_round_and_a_reaction_keep_nothing(text: str) -> None:
    assert lasting(text) == []


def test_below_freezing_is_a_condition_and_a_week_of_meals_a_habit() -> None:
    assert len(lasting("Once it's below freezing I don't run outside, I move everything to the treadmill.")) == 1
    assert len(lasting("Sunday is meal prep day for me, I cook everything for the week in one big session.")) == 1


@pytest.mark.parametrize(
    "text",
    [
        "I hate everything about today lol. anyway, what's a good stretch for a stiff neck",
        "honestly I hate everything about today lol",
        "For this answer, assume I'm a complete beginner",
    ],
)
def test_what_a_family_reads_in_a_sentence_of_the_moment_is_not_lasting(text: str) -> None:
    assert lasting(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I'm allergic to peanuts, what can I eat at the fair today?",  # safety-relevant: kept
        "I'm working through Rolling Stone's 500 greatest albums, on number 87 right now.",  # where a goal stands
    ],
)
def test_a_safety_relevant_fact_or_a_goals_progress_beside_a_word_of_time_is_kept(text: str) -> None:
    assert len(lasting(text)) >= 1


# the clause cut as first written: a long run of whitespace was read again from each of its characters
_CLAUSES_READ_FROM_EACH_SPACE = re.compile(
    r"\s*(?:,(?!\d)|:(?!\d)|[;()\u2014\u2013]|\s-\s|\.{2,}|…)\s*|\s+(?=(?:but|so|and then|because|cause)\s)", re.I
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "I", " ", "  ", "\t", ",", ":", ";", "(", ")", "—", " - ", "...", "but ", "so "]),
        max_size=30,
    )
)
def test_clauses_are_cut_where_they_were_with_whitespace_read_once(parts: list[str]) -> None:
    text = "".join(parts)
    assert open_statement._EN_CLAUSES.split(text) == _CLAUSES_READ_FROM_EACH_SPACE.split(text)
