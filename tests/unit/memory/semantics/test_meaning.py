"""Meaning, offline (memory/semantics): the embedded model loads from its wheel's own files, the
area model is the one its texts train, records and requests are placed in the areas of life, and
a record is related to a request by its areas, its calibrated similarity, its attribute's topics,
or (safety-relevant) its domain; a packed meaning is what a read-model row stores."""

from __future__ import annotations

import base64
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from slotstream.memory.errors import ModelUnavailable
from slotstream.memory.semantics import area_model, relation_model, relevance, vectors
from slotstream.memory.semantics.topics import lexicon

ROOT = Path(__file__).resolve().parents[4]


def top_area(text: str) -> str:
    return lexicon().areas[int(np.argmax(area_model.probabilities(text)))]


def test_the_shipped_area_weights_are_the_ones_their_texts_train() -> None:
    # training/train_areas.py --check: the texts, the area word lists and the settings it was trained on
    spec = importlib.util.spec_from_file_location("train_areas", ROOT / "training" / "train_areas.py")
    assert spec is not None and spec.loader is not None
    trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trainer)
    shipped = json.loads((ROOT / "memory" / "data" / "area_model.json").read_text(encoding="utf-8"))
    examples = trainer.examples()
    assert shipped["trained_on"] == {"examples": len(examples), "digest": area_model.digest(examples)}
    assert len(examples) >= 6000 and {e.areas[0] for e in examples} == set(lexicon().areas)


@pytest.mark.long
def test_training_again_gives_the_shipped_weights() -> None:
    spec = importlib.util.spec_from_file_location("train_areas", ROOT / "training" / "train_areas.py")
    assert spec is not None and spec.loader is not None
    trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trainer)
    trained = area_model.train(trainer.examples())
    shipped = area_model.model()
    assert np.abs(trained.weights - shipped.weights).max() < 1e-3
    assert np.abs(trained.bias - shipped.bias).max() < 1e-3


def test_the_shipped_neighbours_are_the_texts_they_are_made_of() -> None:
    # training/train_areas.py writes them beside the weights: each English text's vector and areas
    spec = importlib.util.spec_from_file_location("train_areas", ROOT / "training" / "train_areas.py")
    assert spec is not None and spec.loader is not None
    trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trainer)
    for language, name in area_model.NEIGHBOURS_FILES.items():
        shipped = np.load(ROOT / "memory" / "data" / name, allow_pickle=False)
        assert np.array_equal(shipped, area_model.neighbours_table(trainer.examples(), language))
        assert shipped.shape[1] == vectors.DIMENSIONS + len(lexicon().areas) and shipped.shape[0] >= 1500


ZH_BORROWED = ("我只看已经完结的剧，追更太折磨人了", "screen")  # a Chinese record's neighbours are Chinese texts


def test_a_record_borrows_the_areas_of_the_texts_nearest_it() -> None:
    # one strong word decides the model ("skin": beauty); the nearest texts read the whole
    names = lexicon().areas
    for text, area in [
        ("Autotune makes my skin crawl. I physically can't listen to it.", "music"),
        ("romance isn't for me, even as a subplot it bugs me", "books"),
        ZH_BORROWED,
    ]:
        own, placed = area_model.probabilities(text), area_model.record_probabilities(text)
        assert placed[names.index(area)] > own[names.index(area)] + 0.1, text
        assert placed.sum() == pytest.approx(1.0, abs=1e-5)
    # a request is placed by the model alone: what a lookup places costs what it did
    request = relevance.request_meaning("Recommend some modern R&B.")
    assert np.array_equal(request.areas, area_model.probabilities("Recommend some modern R&B."))


def _relation_trainer():
    spec = importlib.util.spec_from_file_location("train_relation", ROOT / "training" / "train_relation.py")
    assert spec is not None and spec.loader is not None
    trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trainer)
    return trainer


def test_the_shipped_relation_weights_are_the_ones_their_pairs_train() -> None:
    # training/train_relation.py --check: the pairs, the area model, the background and the settings
    trainer = _relation_trainer()
    shipped = json.loads((ROOT / "memory" / "data" / "relation_model.json").read_text(encoding="utf-8"))
    rows = trainer.rows()
    assert shipped["trained_on"] == {"pairs": len(rows), "digest": relation_model.digest(trainer.texts(rows))}
    assert len(rows) >= 1000 and {r["lang"] for r in rows} == set(relation_model.LANGUAGES)


@pytest.mark.long
def test_training_the_relation_model_again_gives_the_shipped_weights() -> None:
    trainer = _relation_trainer()
    trained = relation_model.train(trainer.pairs(trainer.rows()))
    for lang, scorer in relation_model.model().items():
        assert np.abs(trained.scorers[lang].weights - scorer.weights).max() < 1e-4
        assert abs(trained.scorers[lang].threshold - scorer.threshold) < 1e-4
    assert np.abs(trained.bearing - relation_model.bearing_matrix()).max() < 1e-4


def test_the_shipped_bearing_neighbours_are_the_pairs_they_are_made_of() -> None:
    # training/train_relation.py writes them beside the weights: each statement's vector and the
    # areas of the request it matters for
    made = _relation_trainer().tables(_relation_trainer().rows())
    for language, name in relation_model.BORROWED_FILES.items():
        shipped = np.load(ROOT / "memory" / "data" / name, allow_pickle=False)
        assert np.array_equal(shipped, made[language]), language


def test_a_statement_borrows_its_bearing_from_training_statements_near_it() -> None:
    text = "I get carsick on long bus rides"
    vector = vectors.embed(text)
    areas = area_model.record_probabilities(text, vector)
    travel = lexicon().areas.index("travel")
    by_matrix, bears = relation_model.bearing(areas), relation_model.record_bearing(areas, vector, "en")
    assert bears[travel] > by_matrix[travel] + 0.02  # statements near it mattered for trips
    kept, _ = relation_model.borrowing(vector, "en")
    assert 1 - relation_model.BORROWED_SHARE <= kept < 1
    assert abs(float(bears.sum()) - 1.0) < 1e-5  # still a distribution: the read index holds
    # a vector of no known word borrows nothing
    none = np.zeros_like(vector)
    assert np.array_equal(relation_model.record_bearing(areas, none, "en"), by_matrix)


def _shipped() -> relation_model.Trained:
    return relation_model.Trained(relation_model.model(), relation_model.bearing_matrix().astype(np.float64))


def test_the_relation_model_lets_through_the_share_of_unrelated_training_pairs_it_was_set_for() -> None:
    trainer = _relation_trainer()
    pairs = trainer.pairs(trainer.rows())
    for lang, scorer in relation_model.model().items():
        mine = [relation_model.pair_features(p, _shipped()) for p in pairs if p.language == lang]
        passing = sum(scorer.score(unrelated) >= scorer.threshold for _, unrelated in mine) / len(mine)
        caught = sum(scorer.score(related) >= scorer.threshold for related, _ in mine) / len(mine)
        assert abs(passing - relation_model.UNRELATED_PASSING) < 0.01
        assert caught > 0.5 and caught > 4 * passing, (lang, caught)  # far more related pairs than unrelated


def test_each_area_bears_mostly_on_itself_and_a_records_bearing_is_a_distribution() -> None:
    matrix = relation_model.bearing_matrix()
    assert np.allclose(matrix.sum(axis=1), 1.0, atol=1e-6) and (matrix >= 0).all()
    assert (np.diag(matrix) == matrix.max(axis=1)).all()
    names = lexicon().areas
    health = np.zeros(len(names), dtype=np.float32)
    health[names.index("health")] = 1.0
    # what a user says about their health bears on more than health (a trip, an evening out), and
    # on some areas far more than on others (a game, a song)
    bears = relation_model.bearing(health)
    assert abs(float(bears.sum()) - 1.0) < 1e-5 and bears.argmax() == names.index("health")
    for area in ("travel", "social"):
        assert bears[names.index(area)] > 2 * max(bears[names.index("games")], bears[names.index("music")]), area


@pytest.mark.parametrize(
    "statement, asked, elsewhere",
    [
        (
            "I have a heart condition and take beta blockers.",
            "Plan a week of trekking in Nepal for me.",
            "Write a haiku about autumn leaves.",
        ),
        (
            "I'm seven months pregnant.",
            "Which beaches in Thailand should we visit in March?",
            "Write a haiku about autumn leaves.",
        ),
        ("我有高血压，一直在吃药", "国庆想去西藏玩一周，帮我排个行程", "帮我写一首关于秋天的诗"),
    ],
)
def test_a_statement_reaches_a_request_in_an_area_it_bears_on_and_not_one_it_does_not(
    statement: str, asked: str, elsewhere: str
) -> None:
    # health placed beside travel agrees with it too little by their own areas; through health's
    # bearing on travel, it does
    record = relevance.record_meaning(statement)
    placed = relevance.placed_record(statement)
    trip = relevance.request_meaning(asked)
    assert float(placed.areas @ trip.areas) < relevance.AREA_AGREEMENT <= relevance.relation(record, trip).agreement
    assert relevance.relation(record, trip).related
    assert not relevance.relation(record, relevance.request_meaning(elsewhere)).related


@pytest.mark.parametrize(
    "text, area",
    [
        ("Where should I stay in Lisbon for three nights?", "travel"),
        ("What should I make tonight with chicken thighs?", "food"),
        ("Give me a four-week strength program for the gym.", "fitness"),
        ("帮我订个周末去杭州的酒店", "travel"),
        ("今晚吃什么好", "food"),
        ("我的猫最近不爱吃东西", "pets"),
    ],
)
def test_texts_are_placed_in_their_area(text: str, area: str) -> None:
    probs = area_model.probabilities(text)
    assert abs(float(probs.sum()) - 1) < 1e-5 and probs.shape == (len(lexicon().areas),)
    assert top_area(text) == area


def related(statement: str, request: str, **kw) -> relevance.Relation:
    return relevance.relation(relevance.record_meaning(statement, **kw), relevance.request_meaning(request))


def test_a_statement_reaches_a_request_it_matters_to_and_not_one_it_does_not() -> None:
    assert related("Window seat, always. I get motion sick in the aisle.", "Book me a flight to Rome.").related
    assert not related("Window seat, always. I get motion sick in the aisle.", "How do I fix a leaking tap?").related
    assert related("我吃不了辣，一点都不行", "今晚想吃川菜，推荐一家").related
    assert not related("我吃不了辣，一点都不行", "帮我写个周报").related


def test_an_attributes_own_topic_relates_whatever_the_words() -> None:
    # a diet is about food: a dinner request needs it though it shares no word with "vegetarian"
    assert related("vegetarian", "Suggest a dinner recipe", named=("food",)).related
    assert not related("vegetarian", "Explain how TCP works", named=("food",)).related


def test_a_safety_record_reaches_the_areas_its_area_bears_on() -> None:
    allergy = relevance.record_meaning("I'm allergic to peanuts.", named=("food", "health"), safety=True)
    assert allergy.safety and "food" in relevance.all_topics(allergy)
    assert relevance.relation(allergy, relevance.request_meaning("Recommend a snack for the road.")).related
    assert not relevance.relation(allergy, relevance.request_meaning("Write a cover letter for me.")).related


def test_a_general_request_about_leisure_reaches_what_the_user_does_for_fun() -> None:
    hiking = relevance.record_meaning("Loves hiking.")
    assert relevance.relation(hiking, relevance.request_meaning("What should I do this weekend?")).related
    assert not relevance.relation(hiking, relevance.request_meaning("Suggest a new snack to try.")).related


def test_a_packed_meaning_round_trips_and_costs_what_the_docs_say() -> None:
    meaning = relevance.record_meaning("Strong perfumes give me a headache.", named=("health",), safety=True)
    packed = relevance.pack(meaning)
    back = relevance.unpack(*packed)
    assert back.topics == meaning.topics and back.named == meaning.named and back.reach == meaning.reach
    assert back.safety and np.abs(back.vector_of() - meaning.vector).max() <= 0.5 / 127 + 1e-6
    assert np.abs(back.areas - meaning.areas).max() <= 0.5 / 255 + 1e-6
    # a byte a dimension, a byte an area: 256 + 23 bytes, base64 in the row
    assert len(base64.b64decode(packed[1])) == vectors.DIMENSIONS
    assert len(base64.b64decode(packed[4])) == len(lexicon().areas)


def _screened_out(screen: str, request: relevance.Meaning) -> bool:
    """What context.lua does with a row's screen (relevance.screen_request), in Python."""
    areas, topics = relevance.screen_request(request)
    if not areas:
        return False
    hexed, _, through = screen.partition("|")
    agreement = sum(int(hexed[2 * a : 2 * a + 2], 16) / 255 * float(p) for a, p in enumerate(areas))
    return agreement < relevance.SCREEN_AGREEMENT and not set(through.split()) & set(topics)


def test_the_screen_of_the_indexed_read_never_leaves_out_a_related_record() -> None:
    """Every statement of the shipped dev corpus against every request of a sample of it: a row
    screened out is one the relation finds unrelated, and the screen leaves out most unrelated ones."""
    from slotstream.eval.corpus import corpus_path
    from slotstream.eval.open_language import load

    statements = load(corpus_path("open_language_dev"))[0][::7]
    requests = [relevance.request_meaning(s.related) for s in statements[::3]]
    requests.append(relevance.request_meaning("What should I do this weekend?"))  # general: nothing screened
    unrelated = screened = 0
    for s in statements:
        safety = "allerg" in s.statement or "过敏" in s.statement
        packed = relevance.pack(relevance.record_meaning(s.statement, named=("food",) if safety else (), safety=safety))
        record, screen = relevance.unpack(*packed), relevance.screen_of_packed(packed)
        for request in requests:
            out = _screened_out(screen, request)
            relation = relevance.relation(record, request)
            assert not (out and relation.related), (s.statement, request.topics)
            unrelated += not relation.related
            screened += out
    assert screened >= unrelated / 2, (screened, unrelated)


def test_the_model_is_never_fetched(monkeypatch) -> None:
    # a missing package is an error, not a download
    vectors.model.cache_clear()
    monkeypatch.setattr(vectors, "_package_folder", lambda name: (_ for _ in ()).throw(ModelUnavailable(name)))
    try:
        with pytest.raises(ModelUnavailable):
            vectors.model()
    finally:
        monkeypatch.undo()
        vectors.model.cache_clear()
    assert vectors.embed("hello").shape == (vectors.DIMENSIONS,)
