#!/usr/bin/env bash
# bench-multilingual.sh — issue 34's figures (make bench):
#   1. top-3 recall of the same questions in English, Chinese and Japanese over
#      the parallel help corpus in index/testdata/multilingual (TestMultilingualRecall),
#      and with OBSIDIAN_HELP over the Obsidian help vault (TestObsidianHelpRecall: two
#      question sets, obsidian-help-questions.tsv and the everyday obsidian-help-asked.tsv
#      of issue 46, a line each; docs/decisions-cjk.md);
#   2. a full index build of 10,000 notes in mixed languages (English, Chinese,
#      Japanese, Korean, Thai; sentences of that corpus shuffled), time and
#      index.db size. With BASE_BIN=<an agent built before the CJK bigrams> the
#      same workspace is also built by it, for the 1.5× target.
#
#   scripts/bench-multilingual.sh      # AGENT_BIN (default bin/agent), BENCH_WORK (default $TMPDIR/agent-bench),
#                                      # OBSIDIAN_HELP (a checkout of obsidianmd/obsidian-help: its en, zh, ja pages)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_WORK:-${TMPDIR:-/tmp}/agent-bench}
bin=${AGENT_BIN:-$root/bin/agent}
tags=${GO_TAGS:-sqlite_fts5,netgo,osusergo,sqlite_omit_load_extension}
mkdir -p "$work"

echo >&2 "bench-multilingual.sh: recall in three languages"
echo
(cd "$root" && go test -tags "$tags" -count=1 -v -run 'TestMultilingualRecall$' ./index/) | grep -E '^(\||Multilingual)'
# The Obsidian help vault itself, when a checkout is at hand (OBSIDIAN_HELP;
# it is not shipped: the repository has no licence file).
if [ -n "${OBSIDIAN_HELP:-}" ]; then
    (cd "$root" && OBSIDIAN_HELP=$OBSIDIAN_HELP go test -tags "$tags,obsidian" -count=1 -v -run 'TestObsidianHelpRecall$' ./index/) | grep -E '^Obsidian help'
fi

ws="$work/ws-multilingual"
if [ ! -f "$ws/.generated" ]; then
    echo >&2 "bench-multilingual.sh: generating 10,000 mixed-language notes in $ws"
    rm -rf "$ws" && mkdir -p "$ws/logs"
    python3 - "$root/index/testdata/multilingual" "$ws/logs" <<'PY'
import os, random, re, sys
src, out = sys.argv[1], sys.argv[2]
rnd = random.Random(34)
def sentences(lang):
    text = open(os.path.join(src, lang + ".md"), encoding="utf-8").read()
    body = [l for l in text.splitlines() if l and not l.startswith(("#", "==="))]
    split = r"(?<=[.!?])\s+" if lang == "en" else r"(?<=[。！？])"
    return [s.strip() for l in body for s in re.split(split, l) if s.strip()]
pool = {l: sentences(l) for l in ("en", "zh", "ja")}
# Korean and Thai lines written for this bench (not from any vault).
pool["ko"] = ["오늘은 친구와 끝말잇기를 했다.", "동기화 설정에서 원격 보관소를 만듭니다.", "버전 기록은 한 달 동안 보관됩니다.",
              "단축키가 빨간색으로 표시되면 충돌입니다.", "첨부 파일은 기본 폴더에 저장됩니다.", "인터넷 없이도 앱을 사용할 수 있습니다."]
pool["th"] = ["วันนี้ไปตลาดน้ำกับครอบครัว", "ตั้งค่าการซิงค์และสร้างห้องนิรภัยระยะไกล", "ประวัติเวอร์ชันจะถูกเก็บไว้หนึ่งเดือน",
              "ไฟล์แนบจะถูกบันทึกในโฟลเดอร์เริ่มต้น", "แอปใช้งานได้โดยไม่ต้องเชื่อมต่ออินเทอร์เน็ต"]
langs = ["en"] * 4 + ["zh"] * 2 + ["ja"] * 2 + ["ko", "th"]
for i in range(10000):
    lang = langs[i % len(langs)]
    paras = []
    for h in range(rnd.randint(2, 4)):
        paras.append("## " + rnd.choice(pool[lang])[:24] + "\n\n" + " ".join(rnd.choice(pool[lang]) for _ in range(rnd.randint(3, 8))))
    with open(os.path.join(out, "note-%05d.md" % i), "w", encoding="utf-8") as f:
        f.write("# Note %d\n\n" % i + "\n\n".join(paras) + "\n")
PY
    "$bin" -q --home "$ws" init --agent-name Atlas --user-name Igor
    touch "$ws/.generated"
fi
build() { # $1: binary; prints seconds and index.db bytes, median of 3 full rebuilds
    for _ in 1 2 3; do
        s=$(date +%s%N); "$1" -q --home "$ws" memory reindex --full; e=$(date +%s%N)
        echo $(( (e - s) / 1000000 ))
    done | sort -n | sed -n 2p
}
echo >&2 "bench-multilingual.sh: full build of 10,000 mixed-language notes"
echo
echo "| 10,000 mixed-language notes ($(du -sh "$ws/logs" | cut -f1)) | full build, median of 3 | index.db |"
echo "|---|---|---|"
if [ -n "${BASE_BIN:-}" ]; then
    t=$(build "$BASE_BIN"); echo "| before (BASE_BIN) | $t ms | $(stat -c %s "$ws/index.db") bytes |"
fi
t=$(build "$bin"); echo "| this agent | $t ms | $(stat -c %s "$ws/index.db") bytes |"
