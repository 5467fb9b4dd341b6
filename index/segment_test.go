package index

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTokenForm(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain English, café", "plain English, café"},
		{"标准计划中", " 标 准 计 划 中 "},
		{"步2 重跑gen-itgc后50条", " 步 2  重 跑 gen-itgc 后 50 条 "},
		{"今日は、しりとり", " 今 日 は 、 し り と り "},
		{"끝말잇기를 했다", " 끝 말 잇 기 를   했 다 "},
		{"café后é", "café 后 é"},
		{"x\xff\xe4后\xe4\xb8", "x\xff\xe4 后 \xe4\xb8"},
		{"ตลาดน้ำ", " ต ล า ด น ้ ำ "},
	} {
		if got := tokenForm(c.in); got != c.want {
			t.Errorf("tokenForm(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// classOf's blocks read without tables (CJK ideographs, Hangul syllables,
// kana, CJK punctuation and full-width forms) class every character as the
// Unicode tables do: a character classed otherwise would change what is
// indexed.
func TestClassOfBlocks(t *testing.T) {
	for r := rune(0x0E00); r <= unicode.MaxRune; r++ {
		if got, want := classOf(r), classByTable(r); got != want {
			t.Fatalf("classOf(%U) = %d, the tables say %d", r, got, want)
		}
	}
}

// decodeRune decodes as the standard decoder does, ill-formed text too.
func TestDecodeRune(t *testing.T) {
	for _, s := range []string{"中", "ก", "한", "\uFF01", "\uE000", "\xe0\x80\x80", "\xed\xa0\x80", "\xe4\xb8", "\xe4\x28\xad", "a中", "\xef\xbf\xbf"} {
		for i := range len(s) {
			r, n := decodeRune(s, i)
			wr, wn := utf8.DecodeRuneInString(s[i:])
			if r != wr || n != wn {
				t.Errorf("decodeRune(%q, %d) = %U, %d; want %U, %d", s, i, r, n, wr, wn)
			}
		}
	}
}

func TestQueryTermsSplitRuns(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"flights to Lisbon", []string{"flights", "lisbon"}},
		{"标准计划", []string{"标准", "准计", "计划"}},
		{"gen-itgc后", []string{"gen", "itgc", "后"}},
		{"中", []string{"中"}},
		{"끝말잇기", []string{"끝말", "말잇", "잇기"}},
		// A question word is cut out, not joined to the words around it.
		{"属性有哪些类型", []string{"属性", "类型"}},
		{"如何创建标注", []string{"创建", "建标", "标注"}},
		// Japanese: katakana words stand apart, particles and endings
		// (one or two hiragana) are dropped, a kanji keeps its ending.
		{"Evernoteからノートをインポートする", []string{"evernote", "ノー", "ート", "イン", "ンポ", "ポー"}},
		{"読み込む", []string{"読み", "込む"}},
		{"しりとり", []string{"しり", "りと", "とり"}}, // hiragana alone: kept
		// A word in hiragana opening the run is a word, not an ending.
		{"しりとりの日", []string{"しり", "りと", "とり", "りの", "日"}},
		{"暗号化されていますか", []string{"暗号", "号化", "化さ"}},
	} {
		if got := queryTerms(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("queryTerms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got, want := BuildQuery("中国 x1"), `"中 国" OR "x1"`; got != want {
		t.Errorf("BuildQuery = %s, want %s", got, want)
	}
}

// The cases of issue 34: a word inside a longer run of CJK, Hangul or Thai,
// and Latin letters glued to one, are found, ranked, with snippets cut at
// whole characters.
// The words of a Chinese or Japanese question outrank its question words
// and the bigrams joining one word to the next: in a long question those
// outnumbered the words asked about, and a note that shared them (哪些类型
// in a heading, からノートをインポートする of a neighbouring page) came first.
func TestQuestionWordsDoNotOutrankTheSubject(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/sync-faq.md":   "# 同步常见问题\n\n## 哪些类型的数据会被同步？\n\n笔记和附件都会同步。有哪些风险？加密有哪些选择？\n",
		"logs/properties.md": "# 属性\n\n## 属性类型\n\n属性可以是文本、列表、数字或日期。每个属性只有一种类型。\n",
		"logs/onenote.md":    "# OneNote\n\n## OneNoteからノートをインポートする\n\nOneNoteからノートをインポートするには、インポーターを使います。ノートをインポートしたら確認します。\n",
		"logs/evernote.md":   "# Evernote\n\n## Evernoteのデータをインポートする\n\nEvernoteのノートブックをエクスポートして、インポーターで読み込みます。\n",
		"logs/graph.md":      "# 关系图谱\n\n## 筛选\n\n关系图谱可以按标签和文件夹筛选笔记。\n",
		"logs/canvas.md":     "# キャンバス\n\n## カード\n\nキャンバスでカードをつなぐと、ノートの関係が見えます。\n",
		"logs/daily.md":      "# デイリーノート\n\n## テンプレート\n\nデイリーノートにテンプレートを使うことができます。\n",
		"logs/hotkeys.md":    "# 快捷键\n\n## 修改\n\n在设置中修改快捷键，冲突的快捷键显示为红色。\n",
	})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	for _, c := range []struct{ q, path string }{
		{"属性有哪些类型", "logs/properties.md"},
		{"Evernoteからノートをインポートする", "logs/evernote.md"},
	} {
		if hits := search(t, ix, c.q, SearchOptions{}); len(hits) == 0 || hits[0].Path != c.path {
			t.Errorf("%q: hits %v, want %s first", c.q, paths(hits), c.path)
		}
	}
}

func TestSearchFindsWordsInsideRuns(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-05-01.md": "# 2026-05-01\n\n## 进度\n\n步2 重跑gen-itgc后50条悬空引用清零\n",
		"logs/2026-05-02.md": "# 2026-05-02\n\n## 计划\n\n本周按标准计划中的步骤推进。\n",
		"logs/2026-05-03.md": "# 2026-05-03\n\n## 日記\n\n今日は友達と成語しりとりをして遊んだ。\n",
		"logs/2026-05-04.md": "# 2026-05-04\n\n## 놀이\n\n오늘은 친구와 끝말잇기를 했다.\n",
		"logs/2026-05-05.md": "# 2026-05-05\n\n## ไทย\n\nวันนี้ไปตลาดน้ำกับครอบครัว\n",
		"MEMORY.md":          "# Memory\n\n## Plans\n\nThe standard plan is in the shared drive.\n",
	})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	for _, c := range []struct{ q, path, mark string }{
		{"itgc", "logs/2026-05-01.md", "itgc"},
		{"重跑", "logs/2026-05-01.md", "重跑"},
		{"悬空引用", "logs/2026-05-01.md", "悬空引用"},
		{"标准计划", "logs/2026-05-02.md", "标准计划"},
		{"しりとり", "logs/2026-05-03.md", "しりとり"},
		{"끝말잇기", "logs/2026-05-04.md", "끝말잇기"},
		{"ตลาดน้ำ", "logs/2026-05-05.md", "ตลาดน้ำ"},
		{"清", "logs/2026-05-01.md", "清"}, // one character, inside a run
		{"零", "logs/2026-05-01.md", "零"}, // one character, ending a run
		{"成語", "logs/2026-05-03.md", "成語"},
	} {
		hits := search(t, ix, c.q, SearchOptions{})
		if len(hits) == 0 || hits[0].Path != c.path {
			t.Errorf("%q: hits %v, want %s first", c.q, paths(hits), c.path)
			continue
		}
		h := hits[0]
		if !strings.Contains(h.Snippet, MarkStart+c.mark+MarkEnd) {
			t.Errorf("%q: snippet %q does not mark %q", c.q, h.Snippet, c.mark)
		}
		if !utf8.ValidString(h.Snippet) || !utf8.ValidString(h.Heading) {
			t.Errorf("%q: snippet %q or heading %q is not whole characters", c.q, h.Snippet, h.Heading)
		}
		if h.Heading == "" || h.StartLine == 0 || !strings.Contains(h.Text, c.mark) {
			t.Errorf("%q: hit %+v lacks its citation or text", c.q, h)
		}
	}
	// English finds only the English note, as before.
	if got := paths(search(t, ix, "standard plan", SearchOptions{})); !reflect.DeepEqual(got, []string{"MEMORY.md"}) {
		t.Errorf("standard plan: %v", got)
	}
	// A word not in any note is not found by its characters' neighbours.
	if got := paths(search(t, ix, "计划书", SearchOptions{})); len(got) != 1 {
		t.Errorf("计划书: %v, want only the note holding 计划", got)
	}
	// Raw queries are rewritten into bigrams too.
	if got := paths(search(t, ix, `"标准计划"`, SearchOptions{Raw: true})); !reflect.DeepEqual(got, []string{"logs/2026-05-02.md"}) {
		t.Errorf("raw phrase: %v", got)
	}
}

// A chunk with more of the query's bigrams ranks above one with fewer, and
// a heading in Chinese weighs above body text, as for English.
func TestCJKRanking(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-01-01.md": "# 同步\n\n## 版本历史\n\n同步会保留文件的版本历史，保留期限取决于套餐。\n",
		"logs/2026-01-02.md": "# 其他\n\n## 杂项\n\n历史上的今天。\n",
		"logs/2026-01-03.md": "# 其他\n\n## 设置\n\n版本号显示在设置里。\n",
	})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	hits := search(t, ix, "版本历史的保留期限", SearchOptions{})
	if len(hits) == 0 || hits[0].Path != "logs/2026-01-01.md" {
		t.Fatalf("hits %v, want logs/2026-01-01.md first", paths(hits))
	}
	if hits[0].Heading != "同步 › 版本历史" {
		t.Errorf("heading %q", hits[0].Heading)
	}
}

func TestSegSnippetWholeCharacters(t *testing.T) {
	text := strings.Repeat("这是一段很长的中文文本，", 20) + "关键词在这里。" + strings.Repeat("后面还有很多字。", 20)
	s := segSnippet(text, queryTerms("关键词"))
	if !utf8.ValidString(s) || !strings.Contains(s, MarkStart+"关键词"+MarkEnd) {
		t.Fatalf("snippet %q", s)
	}
	if !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") {
		t.Errorf("snippet %q is not cut on both sides", s)
	}
	if n := utf8.RuneCountInString(s); n > snippetUnits+8 {
		t.Errorf("snippet of %d characters: %q", n, s)
	}
	// Mixed: Latin words are marked as words, glued or not.
	s = segSnippet("步2 重跑gen-itgc后50条悬空引用清零", queryTerms("itgc 重跑"))
	if want := "步2 " + MarkStart + "重跑" + MarkEnd + "gen-" + MarkStart + "itgc" + MarkEnd + "后50条悬空引用清零"; s != want {
		t.Errorf("snippet %q, want %q", s, want)
	}
}

// An index built before CJK runs were split (schema version 1: FTS5 fed the
// text as it is) is rebuilt by itself, with the usual notice, and then
// finds a word inside a run.
func TestIndexOfVersion1IsRebuilt(t *testing.T) {
	home := workspace(t, map[string]string{"logs/2026-05-01.md": "# 2026-05-01\n\n步2 重跑gen-itgc后50条悬空引用清零\n"})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	ix.Close()
	// FTS5's 'rebuild' indexes the content table's text as it is: the
	// index as version 1 built it.
	execOn(t, home+"/"+FileName, "INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild'); PRAGMA user_version = 1")
	ix, w := open(t, home)
	if got := paths(search(t, ix, "重跑", SearchOptions{})); !reflect.DeepEqual(got, []string{"logs/2026-05-01.md"}) {
		t.Fatalf("hits = %v", got)
	}
	if got := w.take(); len(got) != 1 || !hasWarning(got, "schema version 1", "rebuilding it") {
		t.Errorf("warnings = %q, want the rebuild notice", got)
	}
}

// rawForm keeps an expert's FTS5 query valid wherever a run stands.
func TestRawFormStaysValid(t *testing.T) {
	home := workspace(t, map[string]string{"logs/2026-05-02.md": "# 2026-05-02\n\n本周按标准计划中的步骤推进。\n"})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	for _, q := range []string{`标准*`, `^本周`, `NEAR(标准 步骤, 5)`, `"按 标准计划 中"`, `标准计划 NOT 周末`, `text:标准`, `{heading text}:计划`, `"标准""计划"`} {
		if _, err := ix.Search(context.Background(), q, SearchOptions{Raw: true}); err != nil && !errors.Is(err, ErrNotFound) {
			t.Errorf("raw %q (%s): %v", q, rawForm(q), err)
		}
	}
}

// TestHasSegmentedAtEveryOffset: a run's character is seen wherever it
// falls against the eight-byte ASCII steps, and Latin letters or a lone
// high byte are not taken for one.
func TestHasSegmentedAtEveryOffset(t *testing.T) {
	for _, ch := range []string{"中", "の", "한", "ก"} {
		for n := 0; n <= 20; n++ {
			for at := 0; at <= n; at++ {
				s := strings.Repeat("a", at) + ch + strings.Repeat("b", n-at)
				if !hasSegmented(s) {
					t.Fatalf("%q: not seen", s)
				}
				if hasSegmented(strings.Repeat("a", at) + "é" + strings.Repeat("b", n-at)) {
					t.Fatalf("é at %d of %d taken for a run", at, n)
				}
			}
		}
	}
	for _, s := range []string{"", "plain ascii text that is long enough", "caf\xc3\xa9 na\xc3\xafve", "\xe0", "abcdefg\xe0"} {
		if hasSegmented(s) {
			t.Errorf("%q taken for a run", s)
		}
	}
}

func BenchmarkHasSegmentedEnglish(b *testing.B) {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog; café at noon.\n", 200)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if hasSegmented(s) {
			b.Fatal("English taken for a run")
		}
	}
}
