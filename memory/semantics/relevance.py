"""Whether a remembered statement is related to a request, by meaning.

Both sides are placed in the areas of everyday life (food, travel, work, ...: `topics.json`) by the
area model (`area_model.py`: the text's vector and its area words), as probabilities; a record is
then compared by the areas it bears on (`relation_model.bearing`: a heart condition bears on a
trek, a toddler at home on a restaurant), again a distribution. A record is related to a request
when:
- by meaning: its bearing and the request's areas agree at all (the sum over areas of the two
  probabilities' products is at least `AREA_AGREEMENT`) and the relation model
  (`relation_model.py`), reading that agreement together with the record's calibrated similarity
  to the request and how sure its bearing is, scores the pair above its language's threshold
  (both mostly about travel; a hotel complaint and a request to book a stay);
- or the request is on a topic the record's attribute names (a diet is about food), or names a
  topic including the record's ("what should I do this weekend?" is about leisure: hiking, guitar);
- or, for a safety-relevant record (an allergy, a condition, a disability, a hard never), the
  request is on an area its areas bear on (`safety` in `topics.json`: health bears on food, ...):
  it reaches every request in its domain.
The calibrated similarity is how many spreads a record's cosine to the request lies above its mean
cosine to a background of ordinary requests (`memory/data/background_*.txt`, worked out once when
the record is stored). `explain` reports, for a record left out, the relation model's score
against the threshold.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray

from . import area_model, gloss, relation_model, vectors
from .topics import lexicon

# the least sum of the two area probabilities' products a relation by meaning needs
AREA_AGREEMENT = 0.04
# the read index lists a record under each area it is at least this likely about, and a lookup
# reads the lists of the areas its request is: a record on none of them agrees with the request
# by less than 2 x this, at most AREA_AGREEMENT, so the index finds every related record
AREA_LISTED = 0.02
assert 2 * AREA_LISTED <= AREA_AGREEMENT
AREA_SHARE = 0.25  # an area counts among a text's topics from this probability
LEAST_LIKELY = 0.15  # ... and its most likely area, unless no area reaches this
_AREA_SCALE = 255.0  # area probabilities are stored as one byte each
SAFETY_MARK = "*"  # in a packed meaning's topics: the record is safety-relevant


@dataclass(frozen=True, slots=True)
class Meaning:
    """What relevance needs of a text: its topics (its area words' topics, its likely areas, the
    topics its attribute names), its area probabilities, its vector (int8 when stored), and for a
    stored record the mean and spread of its similarity to ordinary requests."""

    topics: frozenset[str]
    vector: NDArray[np.float32]
    areas: NDArray[np.float32]
    mean: float = 0.0
    spread: float = 1.0
    # topics it only bears on (its attribute's related topics, a safety matter's reach): related
    # through one of these, it counts half in ranking
    reach: frozenset[str] = frozenset()
    # the topics its attribute is about (a diet: food): a request on one is related whatever it says
    named: frozenset[str] = frozenset()
    # a request about a topic including others and none of them ("what should I do this weekend?":
    # leisure): what the user does in any of them is related
    general: frozenset[str] = frozenset()
    # safety-relevant (an allergy, a condition, a disability): it reaches every request of its
    # areas and of those they bear on, and by meaning only a request clearly about them
    safety: bool = False
    language: str = "en"  # a request's: the relation model's weights are per language
    peak: float = 0.0  # a record's most likely area's probability: how sure its placement is
    # a stored record's vector as stored (int8, base64), decoded on first use: most records a
    # lookup relates agree too little in areas for their similarity to matter
    packed_vector: str = ""
    _decoded: list[NDArray[np.float32]] = field(default_factory=list, compare=False, repr=False)

    def vector_of(self) -> NDArray[np.float32]:
        if not self.packed_vector:
            return self.vector
        if not self._decoded:
            self._decoded.append(vectors.dequantize(base64.b64decode(self.packed_vector)))
        return self._decoded[0]


@cache
def _background(language: str) -> NDArray[np.float32]:
    raw = resources.files("slotstream.memory").joinpath("data", f"background_{language}.txt").read_text("utf-8")
    return np.stack([vectors.embed(line) for line in raw.splitlines() if line.strip()])


def likely_areas(areas: NDArray[np.float32]) -> frozenset[str]:
    """The areas a text is mostly about: its most likely one (when it stands out at all), and any
    from `AREA_SHARE`."""
    names = lexicon().areas
    best = int(np.argmax(areas)) if areas.size else 0
    if not areas.size or areas[best] < LEAST_LIKELY:
        return frozenset()  # spread over many areas: about none of them in particular
    return frozenset({names[best], *(names[i] for i in np.flatnonzero(areas >= AREA_SHARE))})


def request_meaning(text: str) -> Meaning:
    lex = lexicon()
    vector = vectors.embed(text)
    counts = lex.counts(text)
    areas = area_model.probabilities(text, vector, counts)
    named = set(counts)
    general = frozenset(
        t
        for t in named & lex.umbrellas
        # named with nothing more specific: none of its own areas, no area it is not asked alongside
        if not named & set(lex.includes[t]) and named & set(lex.areas) <= lex.alongside[t]
    )
    return Meaning(
        frozenset(lex.with_parents(named)) | likely_areas(areas),
        vector,
        areas,
        general=general,
        language="zh" if gloss.is_chinese(text) else "en",
    )


def record_meaning(
    text: str, named: tuple[str, ...] = (), related: tuple[str, ...] = (), safety: bool = False
) -> Meaning:
    """A stored record's meaning: its text's topics and likely areas and those its attribute is
    about (`named`); the topics it bears on (its attribute's `related`, and for a safety-relevant
    record the areas its areas bear on); calibrated against ordinary requests. Its area
    probabilities are those of the areas it bears on (`relation_model.bearing`): what a request is
    compared with."""
    placed = placed_record(text, named, related, safety)
    areas = relation_model.record_bearing(placed.areas, placed.vector, area_model.language(text))
    return replace(placed, areas=areas, peak=float(areas.max(initial=0.0)))


def placed_record(
    text: str, named: tuple[str, ...] = (), related: tuple[str, ...] = (), safety: bool = False
) -> Meaning:
    """`record_meaning` with the areas the text is about, before their bearing (training reads these)."""
    lex = lexicon()
    vector = vectors.embed(text)
    areas = area_model.record_probabilities(text, vector)
    # a record about an area is about the topic including it too ("hiking": outdoors, leisure)
    topics = set(lex.with_parents(set(lex.topics_of(text)) | set(likely_areas(areas)))) | set(named)
    reach = set(related)
    if safety:
        reach |= lex.safety_reach(topics)
    background = _background("zh" if gloss.is_chinese(text) else "en") @ vector
    spread = float(background.std()) or 1.0
    return Meaning(
        frozenset(topics),
        vector,
        areas,
        float(background.mean()),
        spread,
        frozenset(reach - topics),
        frozenset(named),
        safety=safety,
        peak=float(areas.max(initial=0.0)),
    )


def pack(meaning: Meaning) -> tuple[str, str, float, float, str]:
    """A record's meaning as stored in its read-model row: its topics (space-separated, those its
    attribute names marked `!`, those it only bears on `~`), its vector (int8, base64), its
    calibration, and its area probabilities (a byte each, base64)."""
    data = meaning.packed_vector or base64.b64encode(vectors.quantize(meaning.vector)).decode()
    topics = [f"!{t}" if t in meaning.named else t for t in sorted(meaning.topics)]
    topics += [f"~{t}" for t in sorted(meaning.reach)]
    if meaning.safety:
        topics.append(SAFETY_MARK)
    areas = np.clip(np.rint(meaning.areas * _AREA_SCALE), 0, 255).astype(np.uint8).tobytes()
    return " ".join(topics), data, round(meaning.mean, 4), round(meaning.spread, 4), base64.b64encode(areas).decode()


@lru_cache(maxsize=8192)  # records of a kind share their topics: a lookup unpacks hundreds
def _unpack_topics(topics: str) -> tuple[frozenset[str], frozenset[str], frozenset[str], bool]:
    words = topics.split()
    safety = SAFETY_MARK in words
    words = [w for w in words if w != SAFETY_MARK]
    own = frozenset(t.lstrip("!") for t in words if not t.startswith("~"))
    named = frozenset(t[1:] for t in words if t.startswith("!"))
    reach = frozenset(t[1:] for t in words if t.startswith("~"))
    return own, named, reach, safety


@lru_cache(maxsize=8192)  # a record's meaning is the same at every lookup: unpacked once per process
def unpack(topics: str, data: str, mean: float, spread: float, areas: str) -> Meaning:
    own, named, reach, safety = _unpack_topics(topics)
    probs = np.frombuffer(base64.b64decode(areas), dtype=np.uint8).astype(np.float32) / _AREA_SCALE
    return Meaning(
        own,
        _NO_VECTOR,
        probs,
        mean,
        spread,
        reach,
        named,
        safety=safety,
        peak=float(probs.max(initial=0.0)),
        packed_vector=data,
    )


_NO_VECTOR = np.zeros(0, dtype=np.float32)


def all_topics(meaning: Meaning) -> frozenset[str]:
    """Every topic a record is on or bears on."""
    return meaning.topics | meaning.reach


def listed_under(meaning: Meaning) -> frozenset[str]:
    """What the read index lists a record used only when related under: every topic it is on or
    bears on, and every area it is at least `AREA_LISTED` likely about."""
    names = lexicon().areas
    return all_topics(meaning) | frozenset(names[i] for i in np.flatnonzero(meaning.areas >= AREA_LISTED))


def listed_under_packed(packed: tuple[str, str, float, float, str]) -> frozenset[str]:
    """`listed_under` of a packed meaning, read off its topics and area bytes (its vector is not
    decoded: the read index needs none of it)."""
    topics, _, _, _, areas = packed
    names = lexicon().areas
    probs = np.frombuffer(base64.b64decode(areas), dtype=np.uint8)
    least = AREA_LISTED * _AREA_SCALE
    listed = {t.lstrip("!~") for t in topics.split() if t != SAFETY_MARK}
    return frozenset(listed | {names[i] for i in np.flatnonzero(probs >= least)})


def screen_of_packed(packed: tuple[str, str, float, float, str]) -> str:
    """What the read index keeps of a record used only when related, for the indexed read to leave
    out a row that cannot be related to a request (context.lua): its area probabilities as stored
    (a byte each, in hex), then "|" and the topics it can be related through whatever its areas
    (those its attribute names and those it bears on), space-separated."""
    topics, _, _, _, areas = packed
    through = sorted({t[1:] for t in topics.split() if t[:1] in ("!", "~")})
    return base64.b64decode(areas).hex() + "|" + " ".join(through)


# the indexed read keeps a row whose area agreement is at least this: below AREA_AGREEMENT by more
# than rounding (the agreement is compared rounded to 4 decimals, the script adds floats of its own)
SCREEN_AGREEMENT = AREA_AGREEMENT - 1e-4


def screen_request(meaning: Meaning) -> tuple[list[str], list[str]]:
    """What the indexed read screens rows used only when related with (`screen_of_packed`): the
    request's area probabilities and its topics. A row whose areas agree with the request's by
    less than `SCREEN_AGREEMENT` and that names or bears on none of the request's topics is not
    related to it (see `relation`). A request naming an umbrella topic in general relates rows by
    what they are about, which the screen does not hold: nothing is screened (empty lists)."""
    if meaning.general:
        return [], []
    return [repr(float(p)) for p in meaning.areas], sorted(meaning.topics)


def looked_up_under(meaning: Meaning) -> frozenset[str]:
    """The lists of the read index a request reads: its topics, the umbrella topics it names in
    general, and every area it is at least `AREA_LISTED` likely about. Any record related to it is
    on one of them (see `relation`)."""
    names = lexicon().areas
    areas = frozenset(names[i] for i in np.flatnonzero(meaning.areas >= AREA_LISTED))
    return meaning.topics | meaning.general | areas


@dataclass(frozen=True, slots=True)
class Relation:
    related: bool
    score: float  # the relation model's score above its threshold (explain)
    shared: frozenset[str]  # the topics both are about
    strength: float = 0.0  # 1: related by meaning or a topic the record is about; 0.5: one it bears on
    agreement: float = 0.0  # the sum of the two area probabilities' products
    named: bool = False  # through a topic its attribute names, or the umbrella one a request names


def _agreement(record: Meaning, request: Meaning) -> float:
    return float(record.areas @ request.areas) if record.areas.size == request.areas.size else 0.0


def similarity(record: Meaning, request: Meaning) -> float:
    """The record's calibrated similarity to the request: spreads above its mean to ordinary requests."""
    return (float(record.vector_of() @ request.vector_of()) - record.mean) / record.spread


def relation(record: Meaning, request: Meaning, scored: bool = True) -> Relation:
    """`scored`: work out the relation model's score even where it cannot decide (for `explain`):
    a record agreeing in areas by less than `AREA_AGREEMENT` is not related by meaning whatever its
    similarity, and leaving the similarity out spares decoding its vector."""
    agreement = round(_agreement(record, request), 4)
    if scored or agreement >= AREA_AGREEMENT:
        by_meaning, score = relation_model.related(
            request.language, agreement, similarity(record, request), record.peak
        )
    else:
        by_meaning, score = False, 0.0
    shared = record.topics & request.topics
    # a request about leisure in general ("what should I do this weekend?") is related to what
    # the user does for leisure (hiking, guitar): the umbrella topic the request's words name
    named = bool(record.named & request.topics or record.topics & request.general)
    if (agreement >= AREA_AGREEMENT and by_meaning) or named:
        return Relation(True, score, shared, 1.0, agreement, named)
    reached = record.reach & request.topics
    return Relation(bool(reached), score, reached, 0.5 if reached else 0.0, agreement, bool(reached))
