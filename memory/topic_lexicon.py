"""Request topics: which subject areas a request's text is about, from a word list per topic.

Data, not rules (docs/concepts.md says how it was built and measured): each topic lists English
words (matched as whole lower-case words, so "meal" does not match "mealy") and Chinese words
(matched as substrings, Chinese has no spaces). Ranking counts a record whose family matters to
one of the request's topics as relevant (registry `topics`); a special-category record is used
only for a request on one of its topics.
"""

from __future__ import annotations

import re
from functools import lru_cache

# topic -> language -> words, whitespace-separated (English: whole lower-case words; Chinese:
# substrings)
_LEXICON: dict[str, dict[str, str]] = {
    "food": {
        "en": (
            "food foods eat eating ate meal meals dinner lunch breakfast brunch snack snacks recipe recipes cook "
            "cooking bake baking restaurant restaurants menu dish dishes cuisine diet grocery groceries "
            "ingredient ingredients catering dessert drink drinks takeout picnic bbq barbecue potluck cafe bakery "
            "kitchen"
        ),
        "zh": ("吃 饭 餐 菜 食 零食 做饭 烹饪 菜谱 食谱 饭店 餐厅 外卖 早饭 午饭 晚饭 甜点 饮料 点心 烘焙 聚餐"),
    },
    "health": {
        "en": (
            "health healthy doctor doctors medical medicine medication symptom symptoms allergy allergies "
            "allergic pharmacy prescription hospital clinic therapy therapist illness sick pain treatment "
            "diagnosis insurance workout exercise fitness vaccine dentist nurse"
        ),
        "zh": ("健康 医生 医院 看病 药 症状 过敏 治疗 诊所 体检 生病 疼 锻炼 健身 疫苗 牙医 保险"),
    },
    "religion": {
        "en": (
            "religion religious church mosque temple synagogue prayer pray faith holiday holidays fasting ramadan "
            "easter christmas sabbath kosher halal worship"
        ),
        "zh": ("宗教 信仰 教堂 清真 寺 礼拜 祈祷 斋月 节日 圣诞 复活节"),
    },
    "politics": {
        "en": (
            "politics political election elections vote voting campaign policy government candidate senator parliament"
        ),
        "zh": ("政治 选举 投票 政党 政府 政策 竞选"),
    },
    "relationships": {
        "en": (
            "dating partner relationship relationships boyfriend girlfriend husband wife spouse wedding romance "
            "romantic"
        ),
        "zh": ("约会 恋爱 男朋友 女朋友 伴侣 婚礼 感情"),
    },
    "ethnicity": {
        "en": ("ethnicity ethnic heritage ancestry culture cultural census"),
        "zh": ("民族 血统 祖籍 种族"),
    },
    "travel": {
        "en": (
            "travel traveling travelling trip trips flight flights fly flying plane airport airline airlines "
            "vacation holiday holidays hotel hotels hostel airbnb itinerary journey train trains cruise getaway "
            "abroad visa luggage packing pack passport booking road drive stay resort sightseeing tour tourist "
            "weekend visit visiting get route ferry boat islands room conference around"
        ),
        "zh": (
            "旅行 旅游 出差 机票 航班 飞机 坐飞机 酒店 住宿 民宿 行程 出行 度假 高铁 火车 自驾 "
            "签证 行李 护照 景点 游玩 出游 订票 订房 出国 游 日游 怎么去 坐船 出海 自由行 攻略 "
            "去哪"
        ),
    },
    "shopping": {
        "en": (
            "buy buying purchase shop shopping price prices cost costs budget afford spend spending gift gifts "
            "present presents order deal deals cheap expensive subscription store stores shoes clothes clothing "
            "apartment rent plan gym membership"
        ),
        "zh": (
            "买 购买 购物 价格 预算 花钱 花费 开销 礼物 送礼 便宜 贵 下单 订阅 商店 网购 衣服 租房 健身房 份子钱 红包"
        ),
    },
    "schedule": {
        "en": (
            "schedule calendar meeting meetings appointment appointments remind reminder reminders week weekly "
            "tomorrow today morning evening plan planning agenda routine slot dentist call calls deadline when"
        ),
        "zh": ("安排 日程 会议 开会 预约 提醒 明天 今天 下周 这周 本周 早上 晚上 计划 时间 什么时候 几点"),
    },
    "leisure": {
        "en": (
            "weekend fun hobby hobbies activity activities relax relaxing movie movies film films music song "
            "songs playlist concert podcast game games sport sports match saturday sunday evening bored "
            "entertainment book books show series outing day things free tonight happening town date out try "
            "place places cafe"
        ),
        "zh": (
            "周末 娱乐 活动 放松 电影 音乐 歌 演唱会 播客 游戏 运动 比赛 爱好 无聊 消遣 电视剧 "
            "玩 休息 有空 干点 去哪玩 约会 下午茶 逛 好玩 晚上"
        ),
    },
    "dates": {
        "en": (
            "birthday birthdays anniversary anniversaries upcoming occasion remember remind reminder coming "
            "surprise cake celebrate celebration month calendar special big date dates"
        ),
        "zh": ("生日 纪念日 重要的日子 日子 记着 记得 惊喜 蛋糕 庆祝 特别 几月 月份 下个月 这个月 空出来"),
    },
    "media": {
        "en": (
            "movie movies film films book books podcast podcasts playlist song songs music youtube channel "
            "channels series show shows album concert karaoke listen watch read reading novel documentary"
        ),
        "zh": ("电影 书 播客 歌 音乐 频道 剧 综艺 演出 演唱会 听 看 up主 专辑 小说 纪录片 b站"),
    },
    "family": {
        "en": (
            "family gift gifts present christmas birthday birthdays anniversary kids children parents valentine "
            "valentine's thanksgiving holiday card wedding everyone us home household"
        ),
        "zh": ("家人 家里 礼物 生日 纪念日 孩子 父母 过年 春节 中秋 情人节 婚礼 全家 一家"),
    },
    "pets": {
        "en": (
            "pet pets dog dogs cat cats vet walk walks park apartment rent houseplant houseplants plants vacuum "
            "away leave sitter sofa fabric leather flowers vase camping hike garden carpet holiday"
        ),
        "zh": ("宠物 狗 猫 兽医 遛 公园 租房 出门 不在家 植物 扫地机器人 沙发 花 露营 回老家 出差 地毯"),
    },
    "home": {
        "en": (
            "home house apartment flat furniture cleaning vacuum garden decorate redecorate bedroom living room "
            "walls paint sofa style kitchen plants flowers"
        ),
        "zh": ("家里 房子 家具 打扫 花园 装修 风格 客厅 卧室 墙 沙发 花"),
    },
    "work": {
        "en": (
            "work job office email emails manager boss colleague colleagues meeting project career salary commute "
            "shift resume cv interview client clients team leave dentist appointment bio linkedin headline "
            "introduction field industry conference badge overtime skills"
        ),
        "zh": (
            "工作 上班 办公 邮件 经理 老板 同事 项目 职业 工资 通勤 面试 客户 团队 请假 加班 "
            "自我介绍 行业 简历 前景 职场 提升 技能"
        ),
    },
    "tech": {
        "en": (
            "screenshot install app apps software laptop phone computer shortcut shortcuts settings update "
            "download setup printer wifi backup keyboard browser file files password sync tool tools editor "
            "terminal device devices screen notes storage vpn battery record recording mode photos ios android "
            "mac windows iphone cloud charger bluetooth workflow note-taking internet router account"
        ),
        "zh": (
            "截图 截屏 安装 软件 手机 电脑 快捷键 设置 更新 下载 打印机 备份 浏览器 文件 同步 "
            "工具 屏幕 app 应用 录屏 内存 存储 电池 掉电 护眼 模式 蓝牙 充电 系统 照片 网络 "
            "账号"
        ),
    },
    "visual": {
        "en": (
            "chart charts graph graphs diagram slide slides presentation colour color colours colors design map "
            "image images picture video videos font read reading watch audio call restaurant venue table"
        ),
        "zh": ("图表 图 幻灯片 演示 颜色 配色 设计 地图 图片 视频 字体 阅读 看 餐厅 场地"),
    },
    "language": {
        "en": (
            "podcast podcasts book books movie movies read article translate translation learn course show series "
            "news abroad trip subtitles foreign international country countries neighbour neighbor message"
        ),
        "zh": ("播客 书 电影 翻译 学习 课程 剧 新闻 字幕 出国 外国 国外 哪个国家 邮件 东京"),
    },
    "labour": {
        "en": ("union unions strike collective bargaining labor labour grievance employment"),
        "zh": ("工会 罢工 劳动 集体谈判"),
    },
}
TOPICS: dict[str, dict[str, tuple[str, ...]]] = {
    topic: {lang: tuple(words.split()) for lang, words in langs.items()} for topic, langs in _LEXICON.items()
}


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
