"""Markers: wording that decides scope and linking, whatever the rule family (this time / from now
on, the item at hand, this project, a correction, putting something on hold)."""

from __future__ import annotations

from .text import rx

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
    \b(?:this|that|these|those)\s+(?:question|problem|one|exercise|task|part|step|function|code|bug|
    error|issue|topic|case|example|email|message|answer|point)s?\b|
    \b(?:explain|describe|elaborate\ on|walk\ me\ through|answer|summari[sz]e)\s+(?:this|that|it|
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
QUESTION_OK = rx(r"^(?:can|could|would|will)\ you\b|^please\b|^(?:你)?(?:能不能|能否|可不可以|可以|能|麻烦|请)")
