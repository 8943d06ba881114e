"""Markers: wording that decides scope and linking, whatever the rule family (this time / from now
on, the item at hand, this project, a correction, putting something on hold)."""

from __future__ import annotations

from . import prefilter
from .text import rx, zh

TEMPORARY = rx(
    r"""
    \b(?:this\ time|just\ this\ once|only\ this\ once|just\ once|this\ once|
    for\ this\ (?:answer|question|reply|response|one|task|conversation|chat|session|request)|
    in\ this\ (?:answer|reply|response|conversation|chat|session)|for\ now|for\ the\ moment|
    right\ now)\b|这次|这一次|本次|这回|此次|这一回|临时|暂时|这个会话|本会话|当前会话|这轮|这一轮
    """
)
LASTING = rx(
    r"""
    \b(?:from\ now\ on|from\ here\ on(?:\ out)?|going\ forward|moving\ forward|in\ (?:the\ )?future|
    always|henceforth|every\ time|by\ default|permanently|for\ good|all\ the\ time|
    from\ this\ point(?:\ on)?)\b|以后|今后|从现在开始|从现在起|从今以后|从今往后|往后|之后都|一直|
    每次|默认|永远|始终|长期
    """
)
# Wording about the item at hand ("explain this question in detail", "a short answer", "这道题")
# is a current-request instruction, not a lasting preference (: "请详细说说这一题").
CURRENT_ITEM = rx(
    r"""
    ^(?:please\s+|now\s+|ok,?\s+|okay,?\s+)?(?:explain|describe|summari[sz]e|tell\ me\ about|
    walk\ me\ through|write|translate|solve|review|analy[sz]e|compare|
    define)\s+(?!(?:the|your|all|each)\s+(?:reasoning|steps|work|working|derivations?|logic|
    thought\ process)\b|
    (?:in|with|more|everything|things|stuff|answers?|it\ all|concisely|briefly|clearly|thoroughly|
    fully|step)\b)[a-z]|
    \b(?<!at\ )(?:this|that|these|those)\s+(?:question|problem|one|exercise|task|part|step|function|code|bug|
    error|issue|topic|case|example|email|message|answer|point)s?\b|
    \b(?:explain|describe|elaborate\ on|walk\ me\ through|answer|summari[sz]e|make|rewrite|redo)\s+(?:this|that|it|
    these|those)\b|
    \b(?:a|an|the)\s+(?:short|brief|concise|quick|detailed|long|longer|thorough|in-depth)\s+(?:answer|
    response|reply|explanation|summary)\b|这一?[题道段部节]|这道题|这个问题|这题|这里|这部分|这段|
    这个(?:函数|代码|错误|报错|例子|概念|问题)|这封|刚才
    """
)
PROJECT = rx(
    r"""
    \b(?:in|for|on|within|across)\s+(?:this|the\ current|our)\s+(?:project|repo|repository|
    codebase)\b|(?:这个|本|当前|该|此)项目
    """
)
CORRECTION = rx(
    r"""
    \b(?:actually|correction|i\ was\ wrong|i\ misspoke|i\ meant|let\ me\ correct|scratch\ that|
    (?:'s|is|was|were)\s+(?:wrong|incorrect|not\ right|a\ mistake|outdated)|not\ anymore|no\ longer|
    anymore|instead|switch(?:ed)?\s+(?:back\s+)?to|change\s+(?:it\s+|that\s+)?to|
    (?:i've|i\ have|i)\s+(?:just\s+|recently\s+)?(?:moved|relocated))\b|不对|不是的|错了|说错|更正|
    纠正|改成|改为|换成|改用|换用|其实|应该是|我的意思是|搬到|搬去|搬家|不再
    """
)
LEAD_CORRECTION = rx(
    r"""
    ^(?:(?:no|nope)\s*[,.:!—–-]+\s*|(?:wait|sorry|oops|actually|correction|rather)\b\s*[,.:!—–-]*\s*|
    (?:不对|不是的|错了|说错了|更正(?:一下)?|纠正(?:一下)?|其实)\s*[，,:：。！!]*\s*)+
    """
)
LEAD_NO = rx(r"^(?:no|nope)\s*[,.!—–-]")
# "Put A on hold" / "A 先停一下": a priority given in the same turn replaces the current one.
HOLD = rx(
    r"""
    \bput\b.{0,40}\bon\ hold\b|\bpause\b|\bstop\ (?:working\ on|doing)\b|\bdeprioriti[sz]e\b|
    先停一下|先停|暂停|先放一放|先放一下|放一放|先不(?:做|管|处理|搞)|搁置
    """
)
QUESTION_OK = rx(
    r"^(?:can|could|would|will)\ you\b|^(?:can|could|shall)\ we\ (?:switch|change|move|go|stick|use|keep)\b|^please\b|"
    r"^(?:以后|今后|之后|回答|回复|你的回答|你)?(?:的)?(?:能不能|能否|可不可以|可以|能|麻烦|请)(?!.*(?:什么|怎么|为"
    r"什么|哪|吗.*吗))"
)
# Discourse lead-ins and hedges that carry nothing to remember: stripped from the front of a sentence
# before the families look at it ("Just so you know, I live in Dublin", "我觉得我的目标是…").
LEAD_FILLER = rx(
    r"""
    ^(?:(?:(?:oh|ah|hey|hi|ok|okay|so|and|also|plus|well|btw|fyi|ps|alright|
    by\ the\ way|just\ so\ you\ know|just\ to\ let\ you\ know|just\ a\ heads[- ]up|a\ heads[- ]up|
    heads[- ]up|for\ the\ record|for\ your\ information|for\ context|for\ reference|quick\ note|
    (?:one\ )?more\ thing|another\ thing|side\ note|as\ a\ side\ note|note|reminder|
    (?:a\ )?quick\ rule(?:\ for\ the\ future)?|new\ rule|honestly|frankly|to\ be\ honest|basically|
    in\ general|generally(?:\ speaking)?|overall|thanks|thank\ you|I\ (?:think|guess|believe|
    suppose|reckon|feel\ like)|I\ think\ I\ (?:mentioned|said)\ (?:it|this|that)\ (?:before|already)\ but|
    I\ (?:should|must)\ (?:mention|say|add)(?:\ that)?|I\ (?:want|wanted)\ to\ (?:mention|say|add|
    let\ you\ know)(?:\ that)?|let\ me\ (?:mention|add|say)(?:\ that)?|just)\b\s*[,:;!—–-]*\s*)+|
    (?:(?:谢谢|多谢|好的|嗯|哦|噢|对了|另外|还有|顺便(?:说|提|讲)?(?:一)?下|顺便|补充(?:一下)?|
    提醒(?:一下)?|跟你说(?:一)?下|和你说(?:一)?下|告诉你(?:一下)?|说一下|说下|然后|
    我觉得|我感觉|我认为|我想说|说实话|老实说|一般来说|总的来说|总之|定个规矩|立个规矩|规矩是|以后的规矩)
    \s*[，,:：！!～~]*\s*)+)
    """
)
# A hypothetical about the user or someone else ("if I moved to Berlin, …", "假如我在东京") states nothing.
HYPOTHETICAL = rx(
    r"""
    ^(?:if|suppose|supposing|imagine|what\ if|say|assuming|in\ case)\s+(?:I|I'm|I'd|we|we're|someone|
    somebody|anyone|a|an|the|my|our|one|people|they|he|she)\b|
    ^(?:假如|如果|要是|假设|万一|倘若|假使|设想)(?!你)
    """
)
# "explain it like I'm five", "as if I were a beginner": a way of asking, not what the user is
AS_IF = rx(r"\s*,?\s*\b(?:like|as\ if|as\ though)\s+(?:I'm|I\ am|I\ was|I\ were|I'd|I\ had)\b.*$")
# A clause whose subject is someone else ("my friend lives in Shanghai", "Tom's goal is …", "我哥想当
# 飞行员") says nothing about the user: the extractor drops it before the families look.
_RELATION_EN = r"""
    (?:friends?|brothers?|sisters?|siblings?|mom|mum|mother|dad|father|parents?|wife|husband|partner|
    spouse|boyfriend|girlfriend|fianc[ée]e?|sons?|daughters?|kids?|children|child|cousins?|uncle|aunt|
    grandma|grandpa|grandmother|grandfather|grandparents?|grand(?:d)?ad|nana|boss|manager|coworkers?|co-workers?|
    teammates?|interns?|bride|groom|
    colleagues?|classmates?|roommates?|flatmates?|neighbou?rs?|teachers?|professors?|students?|
    clients?|customers?|doctor|dentist|landlord|tenant|ex|in-laws?|relatives?|family\ members?|
    buddy|mate|pal|niece|nephew|dog|cat)
"""
OTHERS = rx(
    r"""
    ^(?:(?:and|but|so|also|because|since|while|although|though)\s+)?(?:
    (?:my|our)\s+(?:(?:best|old|close|new|older|younger|little|big|former|\w+'s)\s+)?"""
    + _RELATION_EN
    + r"""(?:'s?)?(?!\s+and\s+(?:I|me)\b)\b|
    (?:he|she|they|his\s+\w+|her\s+\w+|their\s+\w+|someone|somebody|some\ people|people|everyone|everybody|nobody|
    a\ (?:\w+\s+)?
    (?:friend|classmate|colleague|coworker|neighbou?r|relative)\ of\ mine)\b(?!\s+and\s+(?:I|me)\b)|
    (?!(?:We|You|It|Its|Our|My|The|This|That|These|Those|Your|Please|Today|Tomorrow|Now|Then|Also|Just|Thanks|Going|
    From|
    Let|Keep|Start|Give|Show|Always|Never|Every|Each|Any|All|Some|Decided|Priority|Home)\b)
    (?-i:[A-Z][a-z]+)(?:\s+(?:wants|wanted|decided|says|said|thinks|lives|lived|moved|prefers|likes|loves|
    hates|just|always|never|keeps|went|chose|picked|is\ (?:a|an|the|on|in|from|learning|moving|going))\b|
    's\s+(?:goal|plan|dream|team|company|startup|wife|husband|family|boss|friend)\b))
    |^(?:(?:而且|但是|所以|不过|可是)\s*)?(?:我们?(?:的)?|咱们?(?:的)?)?(?:朋友|好友|哥哥?|姐姐?|弟弟?|妹妹?|爸爸?|妈妈?|
    父亲|母亲|父母|爸妈|老婆|老公|妻子|丈夫|爱人|男朋友|女朋友|对象|儿子|女儿|孩子|表哥|表姐|表弟|
    表妹|堂哥|堂姐|堂弟|堂妹|同事|同学|室友|邻居|老板|领导|上司|经理|客户|爷爷|奶奶|外公|外婆|
    小姨|大姨|姨妈|姨父|舅妈|姑父|姑妈|婶婶|伯伯|伯母|大嫂|嫂子|弟媳|姐夫|妹夫|小舅子|小姑子|大舅子|未婚夫|未婚妻|
    叔叔|阿姨|舅舅|姑姑|前任|老师|师傅|闺蜜|哥们|兄弟|发小|婆婆|公公|岳父|岳母|丈母娘|侄子|侄女|外甥女?|
    孙子|孙女|宝宝|小孩|家人|亲戚|队友|下属|学生|老妈|老爸|他|她|他们|她们|别人|有人|人家|大家都|很多人|邻居家)(?!和我|跟我)|
    ^(?-i:(?:小|老|阿)[\u4e00-\u9fff])(?:的|说|是|想|在|要|他们|她们|那|觉得|决定)
    """
)
# The cue fallbacks need the user asking for something, not narrating ("I read the summary first").
ASKING = zh(
    r"""
    (?i:^(?:please\s+|just\s+|always\s+|and\s+)*(?:give|show|put|start|begin|lead|open|tell|state|explain|teach|walk|
    use|
    make|keep|do|present|answer|write|list|front-?load)\b|
    ^(?:examples?|theory|concepts?|conclusions?|answers?|summary|the\s+\w+)\b[^,.]{0,30}(?:first|then|later|after)|
    \b(?:I|we)\s+(?:(?:really|usually|generally|always|much|would|'d|do)\s+)*(?:prefer|like|want|need|love|learn|
    understand|
    get\s+(?:it|things)|find\s+it|'d\s+rather)\b|\b(?:could|can|would|will)\s+you\b|\b(?:when|whenever|if)\s+you\b|
    \byou\s+(?:should|could|can|need\s+to)\b|\b(?:always|from\s+now\s+on|going\s+forward|in\s+general|by\s+default|
    every\s+time|please)\b)|
    请|麻烦|以后|今后|每次|一律|默认|最好|你|我(?:更|比较|一般|通常|还是)?(?:喜欢|习惯|希望|偏好|倾向|需要|想要|想)|
    (?:^|[，,；;])\s*(?:先|首先|开头|一上来)
    """
)

# the markers the extractor looks for in every sentence: tried only where the prefilter finds their words
prefilter.tested(TEMPORARY, LASTING, CURRENT_ITEM, PROJECT, CORRECTION, HOLD)
