"""LoCoMo (Maharana et al., ACL 2024) as a household mailbox: session recall and answers.

Each conversation becomes one mailbox: every session one .eml (Date = the session's date,
From/To the two speakers, the body its turns as "Name: text", a shared photo as
"[photo: caption]"), ingested into a store of its own. Every question is asked with now =
the day after the conversation's last session. Printed per category (1 multi-hop,
2 temporal, 3 open-domain, 4 single-hop, 5 adversarial):

- session-level R@1 and R@5 (a returned session holds an evidence turn), for Brain Query
  and for plain BM25 (rank-bm25 over the same session texts) beside it;
- answer token-F1 (LoCoMo's metric: normalised, stemmed tokens; multi-hop answers split on
  commas), abstention on category 5, and the share of "I don't know" where a gold session
  was in the top 5.

The data is not in the repo: fetch github snap-research/locomo, unzip data/locomo10.zip and
pass the folder of <id>.json files (or locomo10.json). Conversations 26, 30 and 41 are the
development set; the other seven are held out: report them, never tune on them.

    python benchmarks/locomo_bench.py /data/locomo10_v2                 # development
    python benchmarks/locomo_bench.py /data/locomo10_v2 --set heldout   # report only
"""
from __future__ import annotations

import argparse
import collections
import email.utils
import json
import re
import shutil
import string
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from pathlib import Path

import Stemmer
from dateutil import parser as dateparser
from rank_bm25 import BM25Okapi

from brainquery.brain import Brain

DEVELOPMENT = ("26", "30", "41")
HELD_OUT = ("42", "43", "44", "47", "48", "49", "50")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
K = 5
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE = re.compile(r"D(\d+):")
_STEM = Stemmer.Stemmer("english")
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")


# ---- the conversations as mail ---------------------------------------------------------------
@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: dict[int, tuple[datetime, str]]           # number -> (date, body)
    qa: list[dict] = field(default_factory=list)

    @property
    def now(self) -> datetime:
        last = max(date for date, _ in self.sessions.values())
        return (last + timedelta(days=1)).replace(hour=12, minute=0)


def load_conversations(path: Path) -> dict[str, Conversation]:
    if path.is_dir():
        raw = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(path.glob("*.json"))}
    else:   # locomo10.json: a list of samples with the conversation nested
        raw = {}
        for sample in json.loads(path.read_text(encoding="utf-8")):
            sid = str(sample["sample_id"]).split("-")[-1]
            raw[sid] = {**sample["conversation"], "qa": sample["qa"]}
    return {sid: _conversation(sid, data) for sid, data in raw.items()}


def _conversation(sid: str, data: dict) -> Conversation:
    sessions = {}
    for key, turns in data.items():
        match = _SESSION_KEY.match(key)
        if not match or not turns:
            continue
        number = int(match.group(1))
        when = dateparser.parse(data[f"{key}_date_time"].replace(" on ", " "),
                                default=datetime(2000, 1, 1)).replace(tzinfo=timezone.utc)
        sessions[number] = (when, "\n\n".join(_turn(t) for t in turns))
    return Conversation(sid, (data["speaker_a"], data["speaker_b"]), sessions, list(data["qa"]))


def _turn(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [photo: {turn['blip_caption']}]"
    return text


def write_mailbox(conv: Conversation, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    a, b = conv.speakers
    for number, (when, body) in sorted(conv.sessions.items()):
        msg = EmailMessage()
        msg["From"] = f"{a} <{a.lower()}@locomo.example>"
        msg["To"] = f"{b} <{b.lower()}@locomo.example>"
        msg["Date"] = email.utils.format_datetime(when)
        msg["Subject"] = f"Chat {number}: {a} and {b}"
        msg["Message-ID"] = f"<locomo-{conv.sample_id}-{number}@locomo.example>"
        msg.set_content(body)
        (folder / f"session_{number:02d}.eml").write_bytes(bytes(msg))


def gold_sessions(qa: dict) -> set[int]:
    """The sessions that hold a question's evidence turns ("D8:6" is in session 8)."""
    return {int(m) for e in qa.get("evidence", []) for m in _EVIDENCE.findall(str(e))}


def session_of(source: str) -> int | None:
    match = re.search(r"session_(\d+)\.eml$", source)
    return int(match.group(1)) if match else None


# ---- LoCoMo's answer metric ------------------------------------------------------------------
_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)


def _tokens(text: str) -> list[str]:
    text = str(text).lower().translate(_NO_PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return _STEM.stemWords(text.split())


def token_f1(prediction: str, gold: str) -> float:
    pred, true = _tokens(prediction), _tokens(gold)
    common = sum((collections.Counter(pred) & collections.Counter(true)).values())
    if not common:
        return 0.0
    precision, recall = common / len(pred), common / len(true)
    return 2 * precision * recall / (precision + recall)


def answer_f1(prediction: str | None, gold: str, category: int) -> float:
    if not prediction:
        return 0.0
    if category == 1:   # several facts: each gold part scored against its best predicted part
        parts = [p for p in str(prediction).split(",") if p.strip()] or [prediction]
        golds = [g for g in str(gold).split(",") if g.strip()]
        return sum(max(token_f1(p, g) for p in parts) for g in golds) / len(golds)
    return token_f1(prediction, gold)


# ---- one question ------------------------------------------------------------------------------
@dataclass
class Outcome:
    category: int
    gold: set[int]
    ours: list[int]
    bm25: list[int]
    answer: str | None
    f1: float
    question: str = ""
    gold_answer: str = ""

    def hit(self, ranking: list[int], k: int) -> bool:
        return bool(self.gold & set(ranking[:k]))


class PlainBM25:
    """rank-bm25 over the session texts, lower-cased words: the baseline to beat."""

    def __init__(self, conv: Conversation):
        self.numbers = sorted(conv.sessions)
        self.bm25 = BM25Okapi([self._words(conv.sessions[n][1]) for n in self.numbers])

    @staticmethod
    def _words(text: str) -> list[str]:
        return re.findall(r"\w+", text.lower())

    def rank(self, question: str) -> list[int]:
        scores = self.bm25.get_scores(self._words(question))
        order = sorted(range(len(self.numbers)), key=lambda i: -scores[i])
        return [self.numbers[i] for i in order]


def run_conversation(conv: Conversation, workdir: Path) -> list[Outcome]:
    mail = workdir / f"conv-{conv.sample_id}" / "mail"
    write_mailbox(conv, mail)
    brain = Brain(workdir / f"store-{conv.sample_id}")
    brain.ingest([mail], now=conv.now)
    baseline = PlainBM25(conv)
    outcomes = []
    for qa in conv.qa:
        category = int(qa["category"])
        gold = gold_sessions(qa)
        if not gold:
            continue
        result = brain.ask(qa["question"], now=conv.now, k=K).to_dict()
        ours = [s for s in (session_of(r["source"]) for r in result["results"]) if s is not None]
        f1 = answer_f1(result["answer"], qa.get("answer", ""), category) if category != 5 else 0.0
        outcomes.append(Outcome(category, gold, ours, baseline.rank(qa["question"]),
                                result["answer"], f1, qa["question"],
                                str(qa.get("answer", qa.get("adversarial_answer", "")))))
    return outcomes


# ---- the table ---------------------------------------------------------------------------------
def table(outcomes: list[Outcome]) -> str:
    head = (f"{'category':<16}{'n':>5}{'R@1':>7}{'R@5':>7}{'BM25 R@1':>10}{'BM25 R@5':>10}"
            f"{'R@5-BM25':>10}{'F1':>7}{'abstain':>9}{'idk|gold@5':>12}{'<5 src':>8}")
    lines = [head, "-" * len(head)]
    groups = [(f"{c} {name}", [o for o in outcomes if o.category == c]) for c, name in CATEGORIES.items()]
    groups.append(("all", outcomes))
    for label, group in groups:
        if not group:
            continue
        n = len(group)
        r1 = sum(o.hit(o.ours, 1) for o in group) / n
        r5 = sum(o.hit(o.ours, K) for o in group) / n
        b1 = sum(o.hit(o.bm25, 1) for o in group) / n
        b5 = sum(o.hit(o.bm25, K) for o in group) / n
        answerable = [o for o in group if o.category != 5]
        f1 = sum(o.f1 for o in answerable) / len(answerable) if answerable else float("nan")
        adversarial = [o for o in group if o.category == 5]
        abstain = (sum(o.answer is None for o in adversarial) / len(adversarial)
                   if adversarial else float("nan"))
        found = [o for o in answerable if o.hit(o.ours, K)]
        idk = sum(o.answer is None for o in found) / len(found) if found else float("nan")
        short = sum(len(o.ours) < K for o in group) / n
        lines.append(f"{label:<16}{n:>5}{r1:>7.3f}{r5:>7.3f}{b1:>10.3f}{b5:>10.3f}{r5 - b5:>+10.3f}"
                     f"{f1:>7.3f}{abstain:>9.3f}{idk:>12.3f}{short:>8.3f}")
    return "\n".join(lines)


def commit() -> str:
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                             text=True, cwd=Path(__file__).parent, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", type=Path, help="folder of LoCoMo <id>.json files, or locomo10.json")
    p.add_argument("--set", choices=("dev", "heldout", "all"), default="dev")
    p.add_argument("--conversations", help="comma-separated ids (overrides --set)")
    p.add_argument("--workdir", type=Path, help="keep mailboxes and stores here (default: a temp dir)")
    p.add_argument("--json", type=Path, help="also write every outcome to this JSON Lines file")
    args = p.parse_args(argv)

    conversations = load_conversations(args.data)
    wanted = (args.conversations.split(",") if args.conversations
              else {"dev": DEVELOPMENT, "heldout": HELD_OUT, "all": DEVELOPMENT + HELD_OUT}[args.set])
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="locomo-"))
    print(f"LoCoMo session retrieval and answers — commit {commit()}, conversations {', '.join(wanted)}")
    everything: list[Outcome] = []
    try:
        for sid in wanted:
            outcomes = run_conversation(conversations[sid], workdir)
            everything.extend(outcomes)
            print(f"\nconversation {sid} ({len(conversations[sid].sessions)} sessions)\n{table(outcomes)}",
                  flush=True)
        print(f"\npooled\n{table(everything)}")
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                for o in everything:
                    fh.write(json.dumps({"category": o.category, "gold": sorted(o.gold), "ours": o.ours,
                                         "bm25": o.bm25[:K], "answer": o.answer, "f1": o.f1,
                                         "question": o.question, "gold_answer": o.gold_answer}) + "\n")
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
