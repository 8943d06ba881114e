"""Pets: `profile.pets` ("dog: Rex", "2 cats", "猫: 咪咪"). Read before other people's clauses are
dropped, through the user's possessive ("my dog", "我家猫").

The patterns are in `memory/data/families/pets.toml`; here are the readers of a pet and a name."""

from __future__ import annotations

import re

from .everyday_shared import CJK, ME_ZH, Found, first_read
from .prefilter import one_of
from .spec import Reader, Spec

SPEC = Spec("pets")


def _pet_named(m: re.Match[str], pet: str, *names: str) -> str:
    """The pet, with the first of its names said (if any)."""
    name = next((m.group(n) for n in names if m.group(n)), None)
    return m.group(pet) + (f": {name}" if name else "")


_READERS: dict[str, Reader] = {
    "pet_named": _pet_named,
}
PETS_EN = SPEC.pairs("pets_en", _READERS)


_PET_KEPT_ZH = SPEC.searches("pet_kept_zh")
_KEEPS_ZH = SPEC.expressions["keeps_zh"]
# every statement about pets in Chinese is one of these (the prefilter's look at `pets_zh`)
PETS_ZH_REQUIRES = one_of(ME_ZH, _KEEPS_ZH) & one_of(*_PET_KEPT_ZH)


def pets_zh(t: str, user: str) -> list[Found]:
    if "我" not in t and not t.startswith("养"):
        return []
    if not user:
        # someone else's clause ("我朋友养了一只猫"): only the user's own possessive counts
        t = t if re.match(r"我(?:们)?(?:家|的)", t) else ""
        if not t:
            return []
    if re.search(r"(?:想|打算|准备|要不要|能不能|可以|适合)养", t):
        return []
    name = re.search(r"叫([" + CJK + r"A-Za-z]{1,6}?)(?=[，,。！!；;和]|$|呢|哈|啊|呀|一只)", t)
    m = next((found for found in (kept.search(t) for kept in _PET_KEPT_ZH) if found), None)
    if not m:
        return []
    pet = m.group(1)
    if name and name.start() > m.start():
        return [("profile.pets", f"{pet}: {name.group(1)}", False)]
    return [("profile.pets", pet, False)]


# what an English statement about it cannot be without (the prefilter's look at `pets_en`)
PETS_EN_REQUIRES = one_of(*(pattern for pattern, _ in PETS_EN))


def pets_en(t: str) -> list[Found]:
    """The first pattern that matches gives the pet ("my dog Rex")."""
    return first_read(PETS_EN, t, "profile.pets")
