"""Devices, tools, OS: `profile.devices` ("iPhone", "Linux", "我用的是华为手机").

The patterns are in `memory/data/families/devices.toml`; here is how a sentence is read with them."""

from __future__ import annotations

import re

from . import prefilter
from .everyday_shared import ME_ZH, Found, phrase_value
from .prefilter import one_of
from .spec import Spec
from .text import clean

SPEC = Spec("devices")

_DEVICES_EN = SPEC.searches("devices_en")


DEVICES_EN_REQUIRES = one_of(*_DEVICES_EN)  # the prefilter's look at `devices_en`


def devices_en(t: str) -> list[Found]:
    for r in _DEVICES_EN:
        m = prefilter.search(r, t)
        if m:
            p = (m.group("p") + (m.groupdict().get("tail") or "")).strip()
            if re.fullmatch(r"(?i)I|It|The|This|That|A|An", p):
                continue
            return [("profile.devices", phrase_value(p), False)]
    return []


_DEVICES_ZH = SPEC.searches("devices_zh")
_AT_HOME_ZH = SPEC.expressions["at_home_zh"]
# every statement about devices in Chinese is one of these (the prefilter's look at `devices_zh`)
DEVICES_ZH_REQUIRES = one_of(ME_ZH, _AT_HOME_ZH) & one_of(*_DEVICES_ZH)


def devices_zh(t: str) -> list[Found]:
    if ("我" not in t and not t.startswith("家里")) or re.search(r"(?:帮我|给我|替我|请|你)用", t):
        return []
    for pattern in _DEVICES_ZH:
        m = prefilter.search(pattern, t)
        if m:
            v = clean(re.sub(r"(?:系统)?的?$", "", m.group(1)))
            if v:
                return [("profile.devices", v, False)]
    return []
