"""Request topics: which subject areas a request's text is about, from a word list per topic.

Data, not rules: each topic lists English words (matched as whole lower-case words, so "meal"
does not match "mealy") and Chinese words (matched as substrings, Chinese has no spaces). A
special-category record (registry `topics`) is used only for a request on one of its topics.
"""

from __future__ import annotations

import re
from functools import lru_cache

# fmt: off
TOPICS: dict[str, dict[str, tuple[str, ...]]] = {
    "food": {
        "en": ("food", "foods", "eat", "eating", "ate", "meal", "meals", "dinner", "lunch", "breakfast",
               "brunch", "snack", "snacks", "recipe", "recipes", "cook", "cooking", "bake", "baking",
               "restaurant", "restaurants", "menu", "dish", "dishes", "cuisine", "diet", "grocery",
               "groceries", "ingredient", "ingredients", "catering", "dessert", "drink", "drinks",
               "takeout", "picnic", "bbq", "barbecue", "potluck", "cafe", "bakery", "kitchen"),
        "zh": ("吃", "饭", "餐", "菜", "食", "零食", "做饭", "烹饪", "菜谱", "食谱", "饭店", "餐厅", "外卖",
               "早饭", "午饭", "晚饭", "甜点", "饮料", "点心", "烘焙", "聚餐"),
    },
    "health": {
        "en": ("health", "healthy", "doctor", "doctors", "medical", "medicine", "medication", "symptom",
               "symptoms", "allergy", "allergies", "allergic", "pharmacy", "prescription", "hospital",
               "clinic", "therapy", "therapist", "illness", "sick", "pain", "treatment", "diagnosis",
               "insurance", "workout", "exercise", "fitness", "vaccine", "dentist", "nurse"),
        "zh": ("健康", "医生", "医院", "看病", "药", "症状", "过敏", "治疗", "诊所", "体检", "生病", "疼",
               "锻炼", "健身", "疫苗", "牙医", "保险"),
    },
    "religion": {
        "en": ("religion", "religious", "church", "mosque", "temple", "synagogue", "prayer", "pray",
               "faith", "holiday", "holidays", "fasting", "ramadan", "easter", "christmas", "sabbath",
               "kosher", "halal", "worship"),
        "zh": ("宗教", "信仰", "教堂", "清真", "寺", "礼拜", "祈祷", "斋月", "节日", "圣诞", "复活节"),
    },
    "politics": {
        "en": ("politics", "political", "election", "elections", "vote", "voting", "campaign",
               "policy", "government", "candidate", "senator", "parliament"),
        "zh": ("政治", "选举", "投票", "政党", "政府", "政策", "竞选"),
    },
    "relationships": {
        "en": ("dating", "partner", "relationship", "relationships", "boyfriend", "girlfriend",
               "husband", "wife", "spouse", "wedding", "romance", "romantic"),
        "zh": ("约会", "恋爱", "男朋友", "女朋友", "伴侣", "婚礼", "感情"),
    },
    "ethnicity": {
        "en": ("ethnicity", "ethnic", "heritage", "ancestry", "culture", "cultural", "census"),
        "zh": ("民族", "血统", "祖籍", "种族"),
    },
    "labour": {
        "en": ("union", "unions", "strike", "collective", "bargaining", "labor", "labour", "grievance",
               "employment"),
        "zh": ("工会", "罢工", "劳动", "集体谈判"),
    },
}
# fmt: on

_EN_WORD = re.compile(r"[a-z]+")


@lru_cache(maxsize=4096)
def topics_of(text: str) -> frozenset[str]:
    """The topics a request's text is about (empty for an empty or unrelated text)."""
    folded = text.casefold()
    words = set(_EN_WORD.findall(folded))
    found = set()
    for topic, lexicon in TOPICS.items():
        if words.intersection(lexicon["en"]) or any(w in folded for w in lexicon["zh"]):
            found.add(topic)
    return frozenset(found)
