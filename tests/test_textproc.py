"""The words a person types meet the words their paperwork uses.

One analysis (lowercase, tokens, stopwords, Snowball stems, normalisations) for documents
and questions; synonym groups widen the question only; TF-IDF reads through the same
analysis and a question's synonyms move its dense vector too.
"""
from __future__ import annotations

import dataclasses
import pickle
import tomllib

import numpy as np
import pytest

from brainquery.config import load_config
from brainquery.storage.embedding import DenseEmbedder
from brainquery.textproc import Analyzer, fold
from ingest.config import ConfigError, config_file

CONFIG = load_config()


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(CONFIG.text)


def _custom(tmp_path, synonyms: str, **changes) -> Analyzer:
    path = tmp_path / "synonyms.toml"
    path.write_text(synonyms)
    return Analyzer(dataclasses.replace(CONFIG.text, synonyms_file=str(path), **changes))


def _expansions(analyzer: Analyzer, question: str) -> dict[str, float]:
    return {t: w for t, w in analyzer.query_terms(question) if w < 1.0}


# ---- word forms ------------------------------------------------------------------------
@pytest.mark.parametrize("asked, written", [
    pytest.param("roofer", "Summit Roofing LLC", id="agentive-roofer-roofing"),
    pytest.param("plumber", "Plumbing & Drain", id="agentive-plumber-plumbing"),
    pytest.param("weigh", "Weight: 31.0 lb", id="weigh-weight"),
    pytest.param("wifi", "Wi-Fi network", id="hyphenated-compound-joined"),
    pytest.param("16 x 25 x 4", 'Media filter 16" x 25" x 4"', id="dimension-spaced-with-inch-marks"),
    pytest.param("16x25x4", "FILTER 16X25X4", id="dimension-case"),
    pytest.param("hl96v080c3", "model HL96V-080C3", id="model-number-hyphen"),
    pytest.param("080C3", "model HL96V-080C3", id="model-number-part"),
    pytest.param("12:15 pm", "dismissal at 12:15PM", id="clock-suffix-glued"),
    pytest.param("34.5 lb", "weighed 34.50lb", id="unit-glued-trailing-zero"),
    pytest.param("$14,850", "Total: 14850.00", id="thousands-and-cents"),
    pytest.param("owners manual", "Owner's Manual", id="possessive"),
    pytest.param("vaccinations", "vaccinated", id="stemming"),
    pytest.param("who babysat", "Chloe can babysit", id="irregular-past-babysat"),
    pytest.param("when did we buy the couch", "we bought the couch", id="irregular-past-bought"),
    pytest.param("how much was paid", "you pay monthly", id="irregular-past-paid"),
    pytest.param("the car was stolen", "someone steals cars", id="irregular-participle-stolen"),
    pytest.param("when was the chimney swept", "chimney sweep", id="irregular-past-swept"),
])
def test_word_forms_meet(analyzer, asked, written):
    assert set(analyzer.tokens(asked)) <= set(analyzer.tokens(written))


@pytest.mark.parametrize("text, not_read_as", [
    pytest.param("Sat 12th from 18:30", "sit", id="sat-is-saturday"),
    pytest.param("turn left at the school", "leav", id="left-is-a-direction"),
    pytest.param("a rose for Grandma", "rise", id="rose-is-a-flower"),
])
def test_past_forms_that_are_also_everyday_words_keep_their_own_meaning(analyzer, text, not_read_as):
    assert not_read_as not in analyzer.tokens(text)


def test_the_index_is_rebuilt_when_the_synonym_file_changes(tmp_path):
    from brainquery.query.index_state import config_key
    path = tmp_path / "synonyms.toml"
    path.write_text('[stems]\nbaker = "bake"\n')
    config = dataclasses.replace(CONFIG, text=dataclasses.replace(CONFIG.text, synonyms_file=str(path)))
    before = config_key(config)
    path.write_text('[stems]\nbaker = "bake"\nroofer = "roof"\n')
    assert config_key(config) != before


@pytest.mark.parametrize("word", [
    pytest.param("bill", id="bill"), pytest.param("due", id="due"),
    pytest.param("full", id="full-day-vs-half-day"), pytest.param("next", id="next"),
    pytest.param("last", id="last"), pytest.param("first", id="first"),
    pytest.param("two", id="number-word"), pytest.param("amount", id="amount"),
])
def test_words_questions_hinge_on_survive_stopwords(analyzer, word):
    assert analyzer.tokens(f"the {word} of it") == analyzer.tokens(word) != []


@pytest.mark.parametrize("text", [
    pytest.param("What is the", id="question-words"),
    pytest.param("How much does it", id="auxiliaries"),
    pytest.param("Did they do it", id="did"),
])
def test_function_words_are_dropped(analyzer, text):
    assert analyzer.tokens(text) == []


def test_words_keep_order_and_stopwords_for_shingles(analyzer):
    text = "The bill is due on the first of the month"
    words = analyzer.words(text)
    assert len(words) == len(text.split())
    assert [w for w in words if w in set(analyzer.tokens(text))] == analyzer.tokens(text)


def test_compound_parts_and_whole_are_all_indexed(analyzer):
    assert set(analyzer.tokens("wifi")) < set(analyzer.tokens("Wi-Fi"))
    tokens = analyzer.tokens("password otter-Birchwood-7731")
    assert set(analyzer.tokens("otter birchwood 7731 otterbirchwood7731")) <= set(tokens)
    assert analyzer.words("otter-Birchwood-7731") == analyzer.words("otter Birchwood 7731")


@pytest.mark.parametrize("written, read_as", [
    ("HEGARTY_5G", "hegarty 5g"),
    ("wifi_guest-net", "wifi guest-net"),
    ("हिन्दी_बिजली", "हिन्दी बिजली"),
])
def test_an_underscore_separates_words_as_a_space_does(analyzer, written, read_as):
    assert analyzer.tokens(written) == analyzer.tokens(read_as)
    assert analyzer.words(written) == analyzer.words(read_as)
    assert analyzer.tokens_many([written, "x"]) == analyzer.tokens_many([read_as, "x"])


def test_junk_runs_are_not_words(analyzer):
    blob = "a" * (CONFIG.text.max_token_chars + 1)
    assert analyzer.tokens(f"invoice {blob}") == analyzer.tokens("invoice")


# ---- synonyms: the question side -------------------------------------------------------
@pytest.mark.parametrize("question, also_searched", [
    pytest.param("When is the vet appointment?", "animal hospital", id="vet-to-animal-hospital"),
    pytest.param("Which animal hospital do we use?", "veterinarian", id="phrase-to-word"),
    pytest.param("What size is our HVAC filter?", "furnace", id="hvac-filter-to-furnace-filter"),
    pytest.param("Is Friday a half day?", "early release", id="half-day-to-early-release"),
    pytest.param("Is there an early dismissal?", "half day", id="early-dismissal-to-half-day"),
    pytest.param("What time is pickup?", "dismissal", id="pickup-to-dismissal"),
    pytest.param("When do the garbage bins go out?", "trash", id="garbage-to-trash"),
    pytest.param("What's the wifi password?", "wireless network", id="wifi-to-wireless"),
    pytest.param("What's the wifi password?", "passcode", id="password-to-passcode"),
    pytest.param("dentist phone", "dental", id="dentist-to-dental"),
    pytest.param("who is our doctor", "physician clinic", id="doctor-to-physician"),
    pytest.param("next appt", "appointment", id="abbreviation"),
    pytest.param("car insurance", "vehicle", id="car-to-vehicle"),
    pytest.param("how much was the last bill", "statement invoice", id="bill-to-statement"),
    pytest.param("when did we buy the washing machine", "order", id="buy-to-order"),
    pytest.param("who fitted our boiler", "installation", id="fitted-to-installation"),
    pytest.param("what's the excess on the house insurance", "deductible", id="excess-to-deductible"),
    pytest.param("password for the visitors' network", "guest", id="visitor-to-guest"),
    pytest.param("how much is the house insured for", "dwelling", id="house-to-dwelling"),
    pytest.param("when was the chimney last swept", "flue", id="chimney-to-flue"),
    pytest.param("what's the code to join the wifi", "password", id="code-to-join-to-password"),
    pytest.param("when did we last get the carpets cleaned", "hot water extraction", id="carpet-cleaning-to-extraction"),
    pytest.param("what part did they swap when the furnace died", "breakdown stopped working", id="died-to-breakdown"),
])
def test_questions_are_expanded_with_synonyms(analyzer, question, also_searched):
    expansions = _expansions(analyzer, question)
    for term in analyzer.tokens(also_searched):
        assert expansions.get(term) == CONFIG.text.synonym_weight, term


@pytest.mark.parametrize("question, not_searched", [
    pytest.param("hospital parking", "vet", id="part-of-a-phrase-is-not-the-phrase"),
    pytest.param("Is there school on Friday?", "closure", id="no-school-needs-the-no"),
    pytest.param("physical therapy bill", "wellness", id="longest-phrase-wins"),
])
def test_phrases_match_only_whole(analyzer, question, not_searched):
    expansions = _expansions(analyzer, question)
    assert not set(analyzer.tokens(not_searched)) & set(expansions)


def test_typed_words_keep_full_weight_and_repeat(analyzer):
    terms = analyzer.query_terms("filter filter HVAC")
    typed = analyzer.tokens("filter filter HVAC")
    # (a translation, "Filter" in a German letter, counts in full too, after them)
    assert terms[:len(typed)] == [(t, 1.0) for t in typed]
    # an expansion never re-adds (or halves) a word the person typed
    assert [t for t, _ in terms].count(analyzer.tokens("filter")[0]) == 2


def test_expansion_weight_is_configured(tmp_path):
    custom = _custom(tmp_path, 'groups = [["vet", "animal hospital"]]\n', synonym_weight=0.3)
    assert custom.query_terms("vet") == [
        (t, w) for t, w in [(custom.tokens("vet")[0], 1.0)] + [(t, 0.3) for t in custom.tokens("animal hospital")]]


def test_synonym_file_covers_a_household_broadly(analyzer):
    with open(config_file(CONFIG.text.synonyms_file), "rb") as fh:
        data = tomllib.load(fh)
    groups = data["groups"]
    assert len(groups) >= 60
    dead = [m for g in groups for m in g if not analyzer.tokens(m)]
    assert dead == [], "members that analyse to nothing can never match"
    keys = [tuple(sorted(g)) for g in groups]
    assert len(keys) == len(set(keys)), "a group listed twice"


def test_stem_normalisations_apply_to_documents_and_questions(tmp_path):
    custom = _custom(tmp_path, '[stems]\nbaker = "bake"\n')
    plain = _custom(tmp_path, "")
    assert custom.tokens("our baker") == custom.tokens("baking")
    assert custom.query_terms("baker") == [(custom.tokens("bake")[0], 1.0)]
    assert plain.tokens("baker") != plain.tokens("baking")
    assert custom.fingerprint != plain.fingerprint


@pytest.mark.parametrize("text, named", [
    pytest.param('groups = [["vet"]]\n', "two or more", id="group-of-one"),
    pytest.param('groups = "vet"\n', "groups", id="not-a-list"),
    pytest.param('synonyms = []\n', "unknown key", id="unknown-key"),
    pytest.param('[stems]\nroofer = "roof top"\n', "one word", id="stem-to-phrase"),
    pytest.param('groups = [[\n', "not valid TOML", id="bad-toml"),
])
def test_bad_synonym_files_are_named_errors(tmp_path, text, named):
    with pytest.raises(ConfigError, match=named):
        _custom(tmp_path, text)


def test_missing_synonym_file_is_an_error():
    with pytest.raises(ConfigError, match="not found"):
        Analyzer(dataclasses.replace(CONFIG.text, synonyms_file="/nonexistent/synonyms.toml"))


def test_pickles_and_is_the_analyzer_scikit_learn_calls(analyzer):
    copy = pickle.loads(pickle.dumps(analyzer))
    text = "Roofer replaced the Wi-Fi router; half day Friday"
    assert copy(text) == analyzer.tokens(text)
    assert copy.query_terms(text) == analyzer.query_terms(text)
    assert copy.fingerprint == analyzer.fingerprint


# ---- TF-IDF reads through the analyzer -------------------------------------------------
TEXTS = [
    "Summit Roofing replaced the roof shingles in May",
    "Cedar Animal Hospital visit: weight 34.5 lb, rabies vaccine given",
    "Furnace filter 16x25x4 MERV 11, replace every six months",
    "Trash and recycling collection moves to Thursday",
    "Wi-Fi network password changed after the router replacement",
    "Friday is an early release day, dismissal at 12:15 pm",
    "Lawn care invoice for October mowing and leaf cleanup",
    "Dental cleaning appointment for Theo on Thursday",
] * 3


@pytest.fixture(scope="module")
def dense() -> DenseEmbedder:
    return DenseEmbedder(dataclasses.replace(CONFIG.embedding, dims=6), CONFIG.text).fit(TEXTS)


def test_tfidf_vocabulary_is_the_analyzers(dense, analyzer):
    assert set(dense.vectorizer_.vocabulary_) == {t for text in TEXTS for t in analyzer.tokens(text)}


@pytest.mark.parametrize("question", [
    pytest.param("Who was the roofer?", id="roofer"),
    pytest.param("furnace filter size 16 x 25 x 4", id="filter"),
    pytest.param("is friday early release", id="release"),
    pytest.param("roof roof roof shingles", id="repeated-sublinear"),
])
def test_query_projection_equals_transform_for_typed_words(dense, question):
    terms = [(t, 1.0) for t in dense.analyzer_.tokens(question)]
    assert np.allclose(dense.transform_query(question, terms), dense.transform([question])[0], atol=1e-6)


def test_chunk_vectors_are_scikit_learns_without_scikit_learn(dense, tmp_path):
    """`transform` repeats TfidfVectorizer -> TruncatedSVD in numpy: a model loaded from its
    cache (no fitted transformers) embeds as the fitted pipeline does, to the bit (a last
    bit can reorder tied documents); a text with no known word is the zero vector."""
    texts = TEXTS[:7] + ["roof roof roof shingles replaced", "nothing known here zzz", ""]
    fitted = dense.svd_.transform(dense.vectorizer_.transform(texts)).astype(np.float32)
    expected = np.zeros((len(texts), dense.cfg.dims), dtype=np.float32)
    expected[:, :fitted.shape[1]] = fitted
    norms = np.linalg.norm(expected, axis=1, keepdims=True)
    expected = np.divide(expected, norms, out=np.zeros_like(expected), where=norms > 0)
    path = tmp_path / "dense.npz"
    loaded = DenseEmbedder.load(path, dense.cfg, CONFIG.text, dense.save(path))
    assert not hasattr(loaded, "vectorizer_")
    got = loaded.transform(texts)
    assert got.dtype == np.float32 and got.shape == expected.shape
    assert np.array_equal(got, expected)
    assert not got[-2:].any()


def test_synonyms_move_the_query_vector(dense):
    typed_only = [(t, w) for t, w in dense.analyzer_.query_terms("vet") if w == 1.0]
    vet_doc = dense.transform([TEXTS[1]])[0]
    assert float(dense.transform_query("vet", typed_only) @ vet_doc) == 0.0  # "vet" is not in any text
    assert float(dense.transform_query("vet") @ vet_doc) > 0.5


def test_dense_model_cache_refits_when_the_analysis_changes(tmp_path, dense):
    path = tmp_path / "dense.npz"
    digest = dense.save(path)  # a cache is read only with the digest the store recorded
    cfg = dense.cfg
    assert DenseEmbedder.load(path, cfg, CONFIG.text, digest) is not None
    other = dataclasses.replace(CONFIG.text, stopwords_extra=("roof",))
    assert DenseEmbedder.load(path, cfg, other, digest) is None


@pytest.mark.parametrize("word, synonym, phrase_member", [
    pytest.param("vet", "veterinarian", "animal hospital", id="vet"),
    pytest.param("fax", "facsimile", "fax number", id="fax-number-does-not-make-number-a-fax"),
])
def test_one_word_synonyms_of_a_term(analyzer, word, synonym, phrase_member):
    term = analyzer.tokens(word)[0]
    found = analyzer.synonyms(term)
    assert analyzer.tokens(synonym)[0] in found and term not in found
    assert not set(analyzer.tokens(phrase_member)) - {term} & found


def test_tokens_of_many_texts_equal_tokens_of_each(analyzer):
    texts = ['Filter: 16" x 25" x 4" MERV 11', "Wi-Fi password: otter-Birchwood-7731",
             "Ada's 27th birthday cost $14,850.00", "", "12:15pm dismissal", "a\x00b"]
    assert analyzer.tokens_many(texts) == [analyzer.tokens(t.replace("\x00", " ")) for t in texts]


def test_several_word_synonyms_of_a_term_are_their_content_words(analyzer):
    vet = analyzer.tokens("vet")[0]
    assert tuple(analyzer.tokens("animal hospital")) in analyzer.phrase_synonyms(vet)
    # A phrase holding the term itself adds nothing: the term alone already counts.
    fax = analyzer.tokens("fax")[0]
    assert all(fax not in words for words in analyzer.phrase_synonyms(fax))


def test_a_several_word_synonym_covers_a_question_word_only_whole(analyzer):
    from brainquery.query.bm25 import SparseBM25
    from brainquery.query.coverage import TopicTerms
    docs = ["Cedar Creek Animal Hospital: Biscuit's annual exam",
            "Biscuit ate the animal crackers from the school snack",
            "Biscuit waited in the car at Mercy Hospital",
            "Biscuit went to the vet on Monday"]
    bm25 = SparseBM25(CONFIG.bm25).fit([analyzer.tokens(d) for d in docs])
    topic = TopicTerms.of("who is biscuit's vet", analyzer, bm25, ignore={"who"})
    coverage = topic.of_chunks(bm25, np.arange(len(docs)))
    assert coverage[0] == pytest.approx(coverage[3]) == pytest.approx(1.0)
    # Half the phrase is not the phrase: Biscuit is covered, the vet is not.
    assert 0.0 < coverage[1] < 1.0 and 0.0 < coverage[2] < 1.0


def _found(analyzer, question: str, docs: list[str], **options) -> tuple[tuple[str, ...], np.ndarray]:
    """The question's topic terms, and which of them each of `docs` mentions."""
    from brainquery.query.bm25 import SparseBM25
    from brainquery.query.coverage import TopicTerms
    bm25 = SparseBM25(CONFIG.bm25).fit([analyzer.tokens(d) for d in docs])
    topic = TopicTerms.of(question, analyzer, bm25, **options)
    return topic.terms, topic.found(bm25, np.arange(len(docs)))


def test_a_phrases_own_words_never_stand_in_for_each_other(analyzer):
    docs = ["Oil tank and supply line inspected",
            "The septic was pumped out on Tuesday",
            "Septic pumping done, tank clean",
            "Friday is an early release day"]
    terms, found = _found(analyzer, "septic tank", docs, ignore=set())
    # The oil tank is a tank, not the septic tank; the septic (a member of the group whole)
    # is the septic tank, and so is "septic pumping".
    assert not found[0, terms.index("septic")]
    assert found[1].all() and found[2].all()
    assert _found(analyzer, "half day", docs, ignore=set())[1][3].all()


def test_a_bond_repayment_is_the_home_loan_instalment_and_a_bond_alone_is_not(analyzer):
    docs = ["Notice of change in interest rate - home loan account. Monthly instalment R13 742,18",
            "Rental bond of $2,400 lodged with the tenancy board",
            "Savings bond matured"]
    terms, found = _found(analyzer, "whats the bond repayment now", docs, ignore={"what", "now"})
    assert found[0].all()
    assert not found[1].all() and not found[2].all()


@pytest.mark.parametrize("text, tokens", [
    pytest.param("ವಿದ್ಯುತ್ ವ್ಯತ್ಯಯ", ["ವಿದ್ಯುತ್", "ವ್ಯತ್ಯಯ"], id="kannada"),
    pytest.param("बिजली कटौती है।", ["बिजली", "कटौती", "है"], id="hindi-with-a-danda"),
])
def test_a_word_of_an_indic_script_is_one_token_with_its_vowel_signs(analyzer, text, tokens):
    assert analyzer.tokens(text) == tokens


@pytest.mark.parametrize("question", ["electricity", "grandmother", "wardrobe"])
def test_a_household_word_asked_in_english_finds_its_hindi_or_kannada_notice(analyzer, question):
    docs = ["ದಿನಾಂಕ 17.01.2026 (ಶನಿವಾರ) ರಂದು ಬೆಳಿಗ್ಗೆ 10:00 ರಿಂದ ಸಂಜೆ 5:00 ರವರೆಗೆ ವಿದ್ಯುತ್ ವ್ಯತ್ಯಯವಾಗಲಿದೆ",
            "ಭಾನುವಾರ 18/01 ಸಂಜೆ ವಾಪಸ್ ಹೋಗ್ತೀನಿ. ಅಜ್ಜಿ",
            "बेडरूम की अलमारी का काम 02/09/2025 को पूरा हो गया है। कुल: ₹18,500"]
    found = _found(analyzer, question, docs, ignore=set())[1]
    assert found.sum() == 1, found


def test_rubbish_is_a_kind_of_collection_not_any_collecting(analyzer):
    docs = ["Order on the club website and collect from the clubrooms.",
            "From Monday 1 March your kerbside collection day will be Friday.",
            "Bins go out on Thursday night"]
    terms, found = _found(analyzer, "rubbish day", docs, ignore={"day"})
    assert not found[0, terms.index("rubbish")]
    assert found[1, terms.index("rubbish")] and found[2, terms.index("rubbish")]


@pytest.mark.parametrize("question, document, covered", [
    pytest.param("how much did it cost to unblock the drain", "Invoice: blocked drain cleared, £145.00", True, id="un-"),
    pytest.param("when does the car have to be NCT'd by", "Your car's NCT is due by 30/11/2026", True, id="clitic"),
    pytest.param("who did we get to re-shingle the roof", "Summit Ridge Roofing: shingles replaced", True, id="re-"),
    pytest.param("what's the dentist's fax number", "Lakeview Dental, phone (608) 555-0143", False, id="fax-is-no-form-of-anything"),
    pytest.param("when was the kaminfeger last here", "Rechnung - Kaminfegermeister Studer, 22.01.2026", True,
                 id="the-first-part-of-a-compound"),
    pytest.param("which schornsteinfeger do we use", "Schornsteinfegerei Lange GmbH, Rechnung 4471", True,
                 id="a-compound-as-a-business-names-itself"),
    pytest.param("who is the gardener", "Gardenia Florists: your order is ready", False,
                 id="a-word-the-store-has-opens-no-compound"),
])
def test_a_word_the_store_lacks_counts_as_the_form_it_has(analyzer, question, document, covered):
    from brainquery.query.coverage import WordForms
    ignore = set(analyzer.tokens(" ".join(CONFIG.confidence.question_words))) | set(CONFIG.confidence.question_words)
    scoring = CONFIG.scoring
    forms = WordForms(scoring.coverage_word_prefixes, scoring.coverage_word_suffixes, scoring.coverage_word_min_stem,
                      scoring.coverage_word_compound_min)
    terms, found = _found(analyzer, question, [document, "Bins go out on Thursday", "Biscuit's walk at the park"],
                          ignore=ignore, forms=forms)
    assert bool(found[0].all()) is covered, terms


def test_a_name_asked_about_weighs_as_much_as_the_rarest_word_unless_it_is_everywhere(analyzer):
    from brainquery.query.bm25 import SparseBM25
    from brainquery.query.coverage import TopicTerms
    question = "when was ada's dental checkup"
    ask = dict(ignore={"when"}, names={"ada"}, name_share=1.0, name_max_df_share=0.5)

    def weights(docs):
        bm25 = SparseBM25(CONFIG.bm25).fit([analyzer.tokens(d) for d in docs])
        topic = TopicTerms.of(question, analyzer, bm25, **ask)
        plain = TopicTerms.of(question, analyzer, bm25, ignore={"when"})
        return dict(zip(topic.terms, topic.weights)), dict(zip(plain.terms, plain.weights))

    family = ["Ada has soccer", "Ada and Theo: art club", "Theo's dental checkup", "Ada's reading log",
              "The dental plan cards", "Biscuit's walk", "Grocery list", "Bins go out Sunday"]
    boosted, plain = weights(family)
    assert plain["ada"] < plain["checkup"] and boosted["ada"] == pytest.approx(max(plain.values()))
    # A chat where Ada speaks on every page: her name tells no page from another.
    chat = [f"Ada: page {n} of our chat" for n in range(6)] + ["Ada: the dental checkup", "Sam: ok"]
    boosted, plain = weights(chat)
    assert boosted["ada"] == pytest.approx(plain["ada"])


def test_our_english_stopwords_are_scikit_learns():
    # Our own copy, so a question is analysed without loading scikit-learn (issue 11).
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from brainquery.english_stopwords import ENGLISH_STOP_WORDS as ours

    assert ours == ENGLISH_STOP_WORDS


def test_the_word_naming_a_kind_of_policy_and_the_policy_are_found_only_together(analyzer):
    docs = ["Home and contents insurance: policy HL-2290471",
            "Oil: 5W-30 long-life",
            "Pet insurance for Biscuit, policy PI-5531",
            "Biscuit the pet labrador"]
    options = dict(ignore={"what", "number"}, compound_heads=frozenset({"insur"}))
    terms, found = _found(analyzer, "what's the policy number for the pet insurance", docs, **options)
    pet, insurance = terms.index("pet"), terms.index("insur")
    # The home policy mentions insurance, but not of the kind asked about; the oil its
    # word "life" but no insurance; the pet's note names the pet but no insurance.
    assert not found[0, insurance] and not found[3, pet]
    assert found[2, pet] and found[2, insurance]
    terms, found = _found(analyzer, "life insurance", docs, **options)
    assert not found[1].any() and not found[0].any()


def test_two_words_for_one_thing_are_no_kind_of_it(analyzer):
    # "Insurance policy": a policy of insurance, not a kind of policy. A Polish policy that
    # says "ubezpieczenie" (insurance) names it, though no word of it is the "policy".
    docs = ["POLISA nr KT/DOM/25/0418826 - ubezpieczenie Dom i Rodzina", "Bins go out on Tuesday"]
    options = dict(ignore={"number"}, compound_heads=frozenset({"insur", "polici"}))
    terms, found = _found(analyzer, "insurance policy number", docs, **options)
    assert found[0, terms.index("insur")] and found[0, terms.index("polici")]
    assert not found[1].any()


def test_a_question_in_english_finds_the_household_words_of_a_french_letter(analyzer):
    docs = ["Chers parents, lundi 15 février la garderie est fermée. Merci de votre compréhension.",
            "The hardware store is closed on Monday for stocktaking."]
    terms, found = _found(analyzer, "is the daycare closed on monday", docs, ignore={"monday"})
    assert found[0, terms.index("daycar")] and found[0, terms.index("close")]
    assert not found[1, terms.index("daycar")]


@pytest.mark.parametrize("question, document", [
    ("how much is the dancing a term", "Term fee: €60 per dancer, payable by the end of September."),
    ("what time is swimming on saturday", "All swimmers meet on the pool deck at 7:45."),
])
def test_the_one_who_does_a_thing_meets_the_thing(analyzer, question, document):
    assert set(analyzer.tokens(question)) & set(analyzer.tokens(document)) - {"term", "fee", "end"}


def test_a_wellness_examination_is_a_checkup(analyzer):
    terms, found = _found(analyzer, "how heavy was tundra at his last checkup",
                          ["Patient: Tundra\nWeight: 29.6 kg\nWellness examination $78.00", "Tundra: nail trim"],
                          ignore={"heavy", "last"})
    assert found[0, terms.index("checkup")] and not found[1, terms.index("checkup")]


@pytest.mark.parametrize("opening, to_group", [
    ("Chers parents,", True), ("Liebe Eltern,", True), ("Queridas familias:", True), ("Beste ouders,", True),
    ("Dear Zoé,", False), ("Chère Maëlle,", False),
])
def test_a_letter_to_a_group_opens_so_in_other_languages_too(opening, to_group):
    import re
    salutation = re.compile(CONFIG.scoring.group_salutation, re.IGNORECASE | re.MULTILINE)
    assert bool(salutation.search(f"{opening}\n\nLa garderie sera fermée lundi.")) is to_group


@pytest.mark.parametrize("question, document, term", [
    pytest.param("who was the last plumber we had out", "Sanitär Meier GmbH, Quittung Nr. 12, Abfluss gereinigt",
                 "plumb", id="german-trade"),
    pytest.param("when was the chimney sweep last here", "Sotning utförd 2025-10-03 av Söderorts Sotning",
                 "chimney", id="swedish-trade"),
    pytest.param("how much is the health insurance a month", "Ihre Krankenkasse: Prämie 2027 pro Monat",
                 "health", id="swiss-insurer"),
    pytest.param("how much do we pay the cleaner an hour", "Ab Oktober verlange ich 38 Franken pro Stunde.",
                 "hour", id="a-rate-by-the-hour"),
    pytest.param("what time does the after school club close", "Från och med 2 november stänger vi kl. 17.30.",
                 "close", id="a-notice-says-when-it-closes"),
    pytest.param("whats the number plate of the octavia", "Skoda Octavia, 2019. Kontrollschild BE 204 771.",
                 "number", id="a-swiss-number-plate"),
    pytest.param("who did the roof", "Stockholms Tak & Plåt AB. Omläggning av tak, 42 m².", "roof",
                 id="swedish-roof"),
    pytest.param("how much is the pool guy a month", "Die swembad sal elke Dinsdag skoongemaak word.",
                 "pool", id="afrikaans-pool"),
    pytest.param("what does elsa need to bring for the museum trip",
                 "Onsdag 2 december: utflykt till Tekniska museet.", "museum", id="swedish-museum"),
    pytest.param("when does ouma fly back to george", "Ouma vlieg op 2 Januarie terug George toe.", "fli",
                 id="afrikaans-fly"),
    pytest.param("what time does the class trip leave", "Wycieczka do Malborka: zbiórka przed szkołą o 7:30.",
                 "trip", id="polish-trip"),
    pytest.param("who is the chimney sweep", "Kominiarz: Paweł Górski, protokół nr 45/2025.", "chimney",
                 id="polish-trade"),
    pytest.param("when do the black bins go out", "Zmieszane: pojemnik czarny, co drugi wtorek.", "black",
                 id="polish-bin-colour"),
    pytest.param("when was the boiler put in", "Potwierdzamy montaż i uruchomienie kotła gazowego.", "boiler",
                 id="polish-boiler-inflected"),
    pytest.param("when is the glass collected", "Altglas: Sammelstelle beim Schulhaus, jeden Samstag.", "glass",
                 id="german-glass"),
    pytest.param("how much is the deposit on the flat", "Die Mietkaution beträgt drei Monatsmieten.", "deposit",
                 id="german-deposit"),
    pytest.param("when do they read the meter", "Relevé du compteur d'eau le mardi 12 janvier.", "meter",
                 id="french-meter"),
    pytest.param("what is our house insurance policy number", "Polisa nr 123 - ubezpieczenie domu i mieszkania.",
                 "hous", id="polish-house-inflected"),
    pytest.param("who is the landlord", "Hyresvärd: Stockholmshem, felanmälan 08-508 370 00.", "landlord",
                 id="swedish-landlord"),
    pytest.param("what time does the class trip leave", "W środę jedziemy na wycieczkę do Malborka, zbiórka 7:15.",
                 "trip", id="polish-trip-inflected"),
])
def test_an_english_question_finds_the_word_in_the_households_other_languages(analyzer, question, document, term):
    terms, found = _found(analyzer, question, [document, "The garden centre is open late on Thursdays."],
                          ignore=set())
    assert found[0, terms.index(term)] and not found[1, terms.index(term)]


def test_a_translation_is_searched_as_its_letters_language_stems_it(analyzer):
    # BM25 meets the Polish letter's "wycieczkę" (stemmed "wycieczk") through the member "wycieczka".
    letter = set(analyzer.tokens("W środę jedziemy na wycieczkę do Malborka, nie jest to daleko."))
    assert letter & {t for t, _ in analyzer.query_terms("when is the school trip")}


@pytest.mark.parametrize("written, typed", [
    ("Réservation", "reservation"), ("Straße", "strasse"),
    # letters Unicode keeps whole: Polish mail is typed with and without them
    ("Wpłata do 18 marca", "wplata do 18 marca"), ("Søren", "soren"),
])
def test_text_is_folded_to_plain_lowercase_letters(written, typed):
    assert fold(written) == typed


def test_a_polish_school_letter_meets_the_english_question(analyzer):
    # "szkoła" (the member) and "w szkole" (the letter) stem alike once the ł is an l.
    letter = set(analyzer.tokens("Spotkanie w szkole nie jest odwołane, na pewno będzie."))
    assert letter & {t for t, _ in analyzer.query_terms("is there a meeting at school")}


def test_an_edited_synonyms_file_is_read_again(tmp_path):
    # (The tables are built once per process for one file and settings: an edit is a new file.)
    first = _custom(tmp_path, 'groups = [["vet", "animal hospital"]]\n')
    assert "hospit" in {t for t, _ in first.query_terms("vet")}
    second = _custom(tmp_path, 'groups = [["vet", "veterinarian", "pet clinic"]]\n')
    searched = {t for t, _ in second.query_terms("vet")}
    assert "clinic" in searched and "hospit" not in searched


def test_a_translation_of_several_words_searches_its_content_words_only(tmp_path):
    # "numero di polizza": "di" is every other word of an Italian letter, "z" of a Polish one.
    custom = _custom(tmp_path, 'translations = [["policy number", "numero di polizza", "numer z polisy"]]\n')
    searched = {t for t, _ in custom.query_terms("policy number")}
    assert {"polizza", "numero"} <= searched
    assert not {"di", "z"} & searched


def test_a_translation_does_not_stop_another_word_for_a_phrase_from_covering_it(analyzer):
    # "heating system" is the furnace; that "heating" also has its German and Swedish words
    # does not make the furnace stop standing in for it.
    docs = ["Change the furnace filter (16x25x4) this Saturday"]
    terms, found = _found(analyzer, "which filter does our heating system take", docs, ignore={"take"})
    assert found[0, terms.index("heat")]


@pytest.mark.parametrize("question, role", [
    ("roofing company 2023?", "compani"),
    ("whats the number of the lady on the school bus", "ladi"),
    ("who was the tree felling outfit", "outfit"),
    ("whos jonas teacher", "whos"),          # a question word typed without its apostrophe
    ("wheres the spare key", "where"),
])
def test_a_role_named_by_the_word_before_it_is_no_topic(analyzer, question, role):
    # "The roofing company" is the roofer: the Summit Ridge Roofing invoice never says
    # "company", and the insurer's letter that does is no roofer.
    ignore = set(analyzer.tokens(" ".join(CONFIG.confidence.question_words))) | set(CONFIG.confidence.question_words)
    terms, _ = _found(analyzer, question, ["Summit Ridge Roofing - invoice", "Northstar Insurance Company"],
                      ignore=ignore)
    assert role not in terms and terms, terms


def test_a_ptm_is_a_parent_teacher_meeting(analyzer):
    # (as an Indian school's circular names it)
    terms, found = _found(analyzer, "when is the ptm", ["Parent-Teacher Meeting (Term 3): Saturday 24 January",
                                                         "Sports day practice on Friday"], ignore={"when"})
    assert found[0, terms.index("ptm")] and not found[1, terms.index("ptm")]


@pytest.mark.parametrize("text, language", [
    ("Szanowni Państwo, informujemy, że w piątek lekcje będą skrócone, a świetlica będzie czynna tylko do 15:00.",
     "polish"),
    # English words Polish also writes ("do", "i", "to") do not make an English question Polish
    ("whats the wifi code do i need to type it in", "english"),
])
def test_a_text_is_read_in_its_own_language(analyzer, text, language):
    assert analyzer.language(analyzer._split(text)[0]) == language


def test_a_phrase_asked_with_a_question_word_is_named_only_whole(analyzer):
    # "day" asks "what day" too, so "half" is the topic word of "is friday a half day": it is
    # named where the whole phrase is, not by "half six"; and "early out", one of the
    # phrase's synonyms, is no "early" wherever that word is.
    docs = ["Friday is a half day for all grades",
            "I'll be there at half six on Saturday",
            "Please arrive early for the concert",
            "Friday is an early release day"]
    terms, found = _found(analyzer, "is friday a half day", docs, ignore={"day", "friday"})
    assert terms == ("half",)
    assert found[:, 0].tolist() == [True, False, False, True]


def test_a_synonym_that_keeps_one_word_of_the_asked_phrase_stands_in_for_it(analyzer):
    # "code to get on" keeps only "code" (the rest are stopwords): it is the same phrase as
    # "code to join", and the note's "Code to get on: Harbour-Kettle-5081" names it.
    docs = ["New network: TUI-NEST-5G\nCode to get on: Harbour-Kettle-5081", "Door code 4411"]
    terms, found = _found(analyzer, "what's the code to join", docs, ignore={"what"})
    assert found[0].all()


# A translation whose stem is also the stem of a common English word searches English letters
# for that word: "fille" (daughter) for "fill", "Kindes" for "kind", "musée" for "muses". Those
# false friends are left out of config/synonyms.toml; these members share their stem with an
# English word of the same meaning (or one a household's letters do not use), and stay.
SAME_MEANING = {
    ("allergy", "allergi"), ("allergy", "allergia"), ("allergy", "allergie"), ("baby", "neonato"),
    ("basement", "cantina"), ("bedroom", "dormitorio"), ("booking", "reserva"), ("booking", "reservering"),
    ("booking", "réservation"), ("break", "récréation"), ("cancelled", "annulé"), ("car", "auto"),
    ("caretaker", "conciërge"), ("children", "kinderen"), ("children", "kinders"), ("christmas", "noël"),
    ("cleaning", "ménage"), ("complaint", "reclamación"), ("complaint", "reclamo"),
    ("complaint", "réclamation"), ("deductible", "franchise"), ("discount", "réduction"),
    ("doctor", "medico"), ("doctor", "médico"), ("emergency", "urgence"), ("emergency", "urgences"),
    ("father", "padre"), ("fee", "tariffa"), ("fine", "busse"), ("fine", "buße"), ("flat", "apartamento"),
    ("form", "formulaire"), ("form", "formular"), ("form", "formulär"), ("fridge", "réfrigérateur"),
    ("friend", "amigo"), ("holidays", "vacances"), ("hour", "hora"), ("hour", "ora"), ("house", "casa"),
    ("husband", "marito"), ("insurance", "assurance"), ("kitchen", "cuisine"), ("medicine", "medicamento"),
    ("medicine", "médicament"), ("medicine", "médicaments"), ("meeting", "reunión"), ("meeting", "réunion"),
    ("membership fee", "contributie"), ("mobile", "cellulare"), ("mobile", "portable"), ("month", "mois"),
    ("optician", "óptica"), ("optician", "óptico"), ("paediatrician", "pediatra"),
    ("paediatrician", "pediatry"), ("paediatrician", "pédiatre"), ("parents", "padres"), ("pet", "mascota"),
    ("petrol", "gasolina"), ("plumber", "hydraulik"), ("plumber", "sanitär"), ("premium", "contribution"),
    ("reference", "referencia"), ("reference", "référence"), ("repair", "reparación"),
    ("repair", "reparation"), ("repair", "réparation"), ("start", "beginn"), ("start", "début"),
    ("teacher", "maestro"), ("test", "verifica"), ("ticket", "billet"), ("ticket", "billete"),
    ("ticket", "billett"), ("trip", "excursion"), ("trip", "excursión"), ("tyres", "pneumatici"),
    ("vet", "veterinario"), ("water", "eau"),
}
COMMON_ENGLISH = 300    # occurrences in pyspellchecker's English frequency list


def test_no_translation_is_a_false_friend_of_a_common_english_word(analyzer):
    from spellchecker import SpellChecker

    frequency = SpellChecker(language="en").word_frequency.dictionary
    common = [w for w, n in frequency.items() if n >= COMMON_ENGLISH and w.isalpha()]
    english_stems = set(analyzer._stemmer.stemWords(common))
    with open(config_file(analyzer.cfg.synonyms_file), "rb") as fh:
        groups = tomllib.load(fh)["translations"]
    variants = analyzer._stems_everywhere([m for g in groups for m in g])
    found = set()
    for english, *members in groups:
        own = set(analyzer.tokens(english)) | set(analyzer.words(english))
        for member in members:
            words = analyzer.words(member)
            stems = (set(words) if len(words) == 1 else set()) | variants.get(member, set())
            if (stems - own) & english_stems:
                found.add((english, member))
    assert found <= SAME_MEANING, sorted(found - SAME_MEANING)
