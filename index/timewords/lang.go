package timewords

import (
	"sort"
	"strings"
	"time"
)

// German, French and Spanish: the phrases a person uses for the days just
// past, each language's own (docs/decisions-index.md, "Time words"). Month
// and weekday names, numbers and the "ago" and "in"/"on" words of these
// languages join the English ones in the rules of at.

// kind is what a fixed phrase names.
type kind int

const (
	today kind = iota
	yesterday
	dayBefore
	thisWeek
	lastWeek
	thisWeekend
	lastWeekend
	thisMonth
	lastMonthK
	thisYear
	lastYear
	lastWeekday // "letzten Samstag", "samedi dernier", "el sábado pasado": before today
	onWeekday   // "am Samstag", "el sábado": the latest, today included
)

// phrase is a fixed phrase's words (wd stands for a weekday's name).
type phrase struct {
	words []string
	kind  kind
}

// fixedPhrases, longest first. "(w)" is a word that may be left out: an
// article a person may or may not say.
var fixedPhrases = func() []phrase {
	table := map[kind][]string{
		today: {"heute", "heute morgen", "heute früh", "heute abend", "heute nachmittag", "heute nacht",
			"aujourd hui", "ce matin", "ce soir", "cet après midi", "cette nuit",
			"hoy", "esta mañana", "esta tarde", "esta noche"},
		yesterday: {"gestern", "gestern abend", "gestern morgen", "gestern nacht",
			"hier", "hier soir", "hier matin", "la nuit dernière",
			"ayer", "anoche", "ayer por la noche", "ayer por la mañana"},
		dayBefore:   {"vorgestern", "avant hier", "anteayer", "antes de ayer", "antier"},
		thisWeek:    {"diese woche", "cette semaine", "esta semana"},
		lastWeek:    {"letzte woche", "vergangene woche", "(la) semaine dernière", "(la) semaine passée", "(la) semana pasada"},
		thisWeekend: {"dieses wochenende", "ce week end", "este fin de semana"},
		lastWeekend: {"letztes wochenende", "vergangenes wochenende", "(le) week end dernier", "(el) fin de semana pasado"},
		thisMonth:   {"diesen monat", "dieser monat", "ce mois ci", "este mes"},
		lastMonthK:  {"letzten monat", "letzter monat", "vergangenen monat", "(le) mois dernier", "(le) mois passé", "(el) mes pasado"},
		thisYear:    {"dieses jahr", "cette année", "este año"},
		lastYear:    {"letztes jahr", "vergangenes jahr", "(l) année dernière", "(l) an dernier", "(el) año pasado"},
		lastWeekday: {"letzten wd", "letzter wd", "vergangenen wd", "(le) wd dernier", "(el) wd pasado"},
		onWeekday:   {"am wd", "el wd"},
	}
	var out []phrase
	for k, list := range table {
		for _, p := range list {
			words := strings.Fields(p)
			if strings.HasPrefix(words[0], "(") {
				out = append(out, phrase{words[1:], k})
				words[0] = strings.Trim(words[0], "()")
			}
			out = append(out, phrase{words, k})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].words) > len(out[j].words) })
	return out
}()

// fixed reads a fixed phrase at token i: the days it names and how many
// tokens it took.
func fixed(ts []token, i int, today0 time.Time) (from, to time.Time, n int, ok bool) {
	for _, p := range fixedPhrases {
		wd, matched := time.Weekday(-1), i+len(p.words) <= len(ts)
		for j := 0; matched && j < len(p.words); j++ {
			w := ts[i+j].w
			if p.words[j] == "wd" {
				d, isDay := weekdays[w]
				wd, matched = d, isDay
			} else {
				matched = w == p.words[j]
			}
		}
		if !matched || len(p.words) == 1 && p.words[0] == "hier" && !french(ts) {
			continue // "hier" alone is "here" in German
		}
		from, to := span(p.kind, today0, wd)
		return from, to, len(p.words), true
	}
	return
}

// span is the days a fixed phrase names, today being t.
func span(k kind, t time.Time, wd time.Weekday) (time.Time, time.Time) {
	mon := t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
	first := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location())
	jan := time.Date(t.Year(), 1, 1, 0, 0, 0, 0, t.Location())
	switch k {
	case yesterday:
		return t.AddDate(0, 0, -1), t.AddDate(0, 0, -1)
	case dayBefore:
		return t.AddDate(0, 0, -2), t.AddDate(0, 0, -2)
	case thisWeek:
		return mon, mon.AddDate(0, 0, 6)
	case lastWeek:
		return mon.AddDate(0, 0, -7), mon.AddDate(0, 0, -1)
	case thisWeekend:
		return mon.AddDate(0, 0, 5), mon.AddDate(0, 0, 6)
	case lastWeekend:
		return mon.AddDate(0, 0, -2), mon.AddDate(0, 0, -1)
	case thisMonth:
		return first, first.AddDate(0, 1, -1)
	case lastMonthK:
		return first.AddDate(0, -1, 0), first.AddDate(0, 0, -1)
	case thisYear:
		return jan, jan.AddDate(1, 0, -1)
	case lastYear:
		return jan.AddDate(-1, 0, 0), jan.AddDate(0, 0, -1)
	case lastWeekday, onWeekday:
		back := (int(t.Weekday()) - int(wd) + 7) % 7
		if k == lastWeekday && back == 0 {
			back = 7
		}
		return t.AddDate(0, 0, -back), t.AddDate(0, 0, -back)
	}
	return t, t
}

// french reports a French word among ts, for "hier", which is "yesterday"
// in French and "here" in German.
func french(ts []token) bool {
	for _, t := range ts {
		switch t.w {
		case "je", "j", "ai", "qu", "que", "quoi", "est", "ce", "le", "les", "du", "des", "où", "mon", "ma", "mes", "fait", "était", "suis", "avec":
			return true
		}
	}
	return false
}

// agoBefore are the words before a count that make "N units ago":
// "vor drei Tagen", "il y a deux semaines", "hace dos meses".
var agoBefore = [][]string{{"vor"}, {"il", "y", "a"}, {"hace"}}

// units are the words of a count's unit, each language's, singular and
// plural, as the English rule's "day", "week", "month", "year".
var units = map[string]string{
	"tag": "day", "tage": "day", "tagen": "day", "woche": "week", "wochen": "week",
	"monat": "month", "monate": "month", "monaten": "month", "jahr": "year", "jahre": "year", "jahren": "year",
	"jour": "day", "jours": "day", "semaine": "week", "semaines": "week", "mois": "month",
	"an": "year", "ans": "year", "année": "year", "années": "year",
	"día": "day", "días": "day", "dia": "day", "dias": "day", "semana": "week", "semanas": "week",
	"mes": "month", "meses": "month", "año": "year", "años": "year",
}

// agoPrefix reads "vor drei Tagen", "il y a deux semaines", "hace dos
// meses" at token i: the count, the English unit and how many tokens.
func agoPrefix(ts []token, i int) (n int, unit string, used int, ok bool) {
	for _, pre := range agoBefore {
		j := i
		for _, w := range pre {
			if j >= len(ts) || ts[j].w != w {
				j = -1
				break
			}
			j++
		}
		if j < 0 || j+1 >= len(ts) {
			continue
		}
		if n, isCount := count(ts[j].w); isCount {
			if u, isUnit := units[ts[j+1].w]; isUnit {
				return n, u, j + 2 - i, true
			}
		}
	}
	return
}

// numbers are the small numbers of the other languages, as words.
var numbers = map[string]int{
	"ein": 1, "eine": 1, "einer": 1, "einem": 1, "einen": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6,
	"sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12,
	"un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8, "neuf": 9,
	"dix": 10, "onze": 11, "douze": 12,
	"uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
	"nueve": 9, "diez": 10, "once": 11, "doce": 12,
}

// otherWeekdays and otherMonths join weekdays and months.
var otherWeekdays = map[string]time.Weekday{
	"montag": time.Monday, "dienstag": time.Tuesday, "mittwoch": time.Wednesday, "donnerstag": time.Thursday,
	"freitag": time.Friday, "samstag": time.Saturday, "sonnabend": time.Saturday, "sonntag": time.Sunday,
	"lundi": time.Monday, "mardi": time.Tuesday, "mercredi": time.Wednesday, "jeudi": time.Thursday,
	"vendredi": time.Friday, "samedi": time.Saturday, "dimanche": time.Sunday,
	"lunes": time.Monday, "martes": time.Tuesday, "miércoles": time.Wednesday, "miercoles": time.Wednesday,
	"jueves": time.Thursday, "viernes": time.Friday, "sábado": time.Saturday, "sabado": time.Saturday, "domingo": time.Sunday,
}

var otherMonths = map[string]time.Month{
	"januar": 1, "februar": 2, "märz": 3, "juni": 6, "juli": 7, "oktober": 10, "dezember": 12,
	"janvier": 1, "février": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7, "août": 8,
	"septembre": 9, "octobre": 10, "novembre": 11, "décembre": 12,
	"enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8,
	"septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
}

func init() {
	for w, d := range otherWeekdays {
		weekdays[w] = d
	}
	for w, m := range otherMonths {
		months[w] = m
	}
}

// inWords come before a month ("in October", "im Oktober", "en octubre"),
// onWords only before a date ("on 3 November", "am 3. November", "le 3
// novembre", "el 3 de noviembre"); ofWords between a day and its month or
// year.
var (
	inWords = map[string]bool{"in": true, "during": true, "since": true, "im": true, "seit": true, "en": true, "depuis": true, "durante": true, "desde": true}
	onWords = map[string]bool{"on": true, "am": true, "le": true, "el": true}
	ofWords = map[string]bool{"of": true, "de": true}
)
