//go:build segexp

// The segmenter experiment of issue 46 item 5 (docs/decisions-cjk.md),
// kept in history and reverted: built only with the tag segexp, it cuts a
// query's Chinese or Japanese run with a dictionary segmenter instead of
// cjParts, and with SEG_INDEX=1 indexes words instead of characters.
//
//	SEG_ZH=gse              Chinese runs (no kana in the word) by go-ego/gse, zh_s dictionary
//	SEG_JA=kagome|gse       Japanese runs by kagome (SEG_JADICT=uni for UniDic, else IPA) or gse
//	SEG_MODE=bigram|phrase  each word searched as its bigrams, or as the phrase of all its characters
//	SEG_INDEX=1             the index holds the segmenter's words (then SEG_MODE=phrase)
//
// OBSIDIAN_HELP=/work/obsidian-help SEG_ZH=gse SEG_MODE=bigram go test \
//	-tags sqlite_fts5,netgo,osusergo,sqlite_omit_load_extension,obsidian,segexp \
//	-v -run 'TestObsidianHelpRecall|TestMultilingualRecall' ./index

package index

import (
	"os"
	"sync"
	"unicode/utf8"

	"github.com/go-ego/gse"
	"github.com/ikawaha/kagome-dict/ipa"
	"github.com/ikawaha/kagome-dict/uni"
	"github.com/ikawaha/kagome/v2/tokenizer"
)

var (
	expOnce      sync.Once
	expZh, expJa gse.Segmenter
	expKagome    *tokenizer.Tokenizer
	expMode      = os.Getenv("SEG_MODE") // bigram | phrase
	expSegZh     = os.Getenv("SEG_ZH")   // gse | ""
	expSegJa     = os.Getenv("SEG_JA")   // kagome | gse | ""
)

func expLoad() {
	if expSegZh == "gse" {
		if err := expZh.LoadDictEmbed("zh_s"); err != nil {
			panic(err)
		}
		if err := expZh.LoadStopEmbed(); err != nil {
			panic(err)
		}
	}
	if expSegJa == "gse" {
		if err := expJa.LoadDictEmbed("ja"); err != nil {
			panic(err)
		}
	}
	if expSegJa == "kagome" {
		d := ipa.Dict
		if os.Getenv("SEG_JADICT") == "uni" {
			d = uni.Dict
		}
		t, err := tokenizer.New(d(), tokenizer.OmitBosEos())
		if err != nil {
			panic(err)
		}
		expKagome = t
	}
}

func init() {
	if expSegZh == "" && expSegJa == "" {
		return
	}
	cutCJ = func(w, run string) ([]string, []bool) {
		expOnce.Do(expLoad)
		ja := false
		for _, r := range w {
			ja = ja || isHiragana(r) || isKatakana(r)
		}
		type word struct {
			s string
			f bool
		}
		var words []word
		switch {
		case ja && expSegJa == "kagome":
			for _, t := range expKagome.Tokenize(run) {
				pos := t.POS()
				base, _ := t.BaseForm()
				f := false
				switch pos[0] {
				case "助詞", "助動詞", "記号", "接頭詞":
					f = true
				}
				if len(pos) > 1 && (pos[1] == "非自立" || pos[1] == "代名詞") {
					f = true
				}
				switch base {
				case "する", "いる", "ある", "なる", "れる", "られる", "できる":
					f = true
				}
				words = append(words, word{t.Surface, f})
			}
		case ja && expSegJa == "gse":
			for _, s := range expJa.Cut(run, true) {
				all := true
				for _, r := range s {
					all = all && isHiragana(r)
				}
				words = append(words, word{s, all})
			}
		case !ja && expSegZh == "gse":
			for _, s := range expZh.Cut(run, true) {
				words = append(words, word{s, expZh.IsStop(s) || zhFunctionAt([]rune(s)) == utf8.RuneCountInString(s)})
			}
		default:
			var terms []string
			var fs []bool
			for pi, part := range cjParts([]rune(run)) {
				if len(part) == 1 {
					terms, fs = append(terms, string(part)), append(fs, isHiragana(part[0]))
				}
				for k := 0; k+1 < len(part); k++ {
					terms, fs = append(terms, string(part[k:k+2])), append(fs, kanaFunction(part, pi == 0, k))
				}
			}
			return terms, fs
		}
		var terms []string
		var fs []bool
		for _, wd := range words {
			r := []rune(wd.s)
			if len(r) == 0 || classOf(r[0]) == segNone {
				continue
			}
			if expMode == "phrase" || len(r) == 1 {
				terms, fs = append(terms, wd.s), append(fs, wd.f)
				continue
			}
			for k := 0; k+1 < len(r); k++ {
				terms, fs = append(terms, string(r[k:k+2])), append(fs, wd.f)
			}
		}
		return terms, fs
	}
}

// expWords cuts a Chinese or Japanese run into words with the segmenter
// the environment names.
func expWords(run string, ja bool) []string {
	expOnce.Do(expLoad)
	var out []string
	switch {
	case ja && expSegJa == "kagome":
		for _, t := range expKagome.Tokenize(run) {
			out = append(out, t.Surface)
		}
	case ja && expSegJa == "gse":
		out = expJa.Cut(run, true)
	case !ja && expSegZh == "gse":
		out = expZh.Cut(run, true)
	default:
		for _, r := range run {
			out = append(out, string(r))
		}
	}
	return out
}

func init() {
	if os.Getenv("SEG_INDEX") == "" {
		return
	}
	wordIndex = true
	formCJ = func(s string) string {
		ja := false
		for _, r := range s {
			ja = ja || isHiragana(r) || isKatakana(r)
		}
		var b []byte
		rs := []rune(s)
		for i := 0; i < len(rs); {
			if classOf(rs[i]) != segCJ {
				b = utf8.AppendRune(b, rs[i])
				i++
				continue
			}
			j := i
			for j < len(rs) && classOf(rs[j]) == segCJ {
				j++
			}
			b = append(b, ' ')
			for _, w := range expWords(string(rs[i:j]), ja) {
				b = append(b, w...)
				b = append(b, ' ')
			}
			i = j
		}
		return string(b)
	}
}
