package timewords

import "testing"

// German, French and Spanish questions resolve to the days a person means,
// as the English ones do: now is Saturday 28 November 2026, 09:00 in
// Lisbon (so last week is 16-22 November).
func TestFindOtherLanguages(t *testing.T) {
	// Words that name no time: German "hier" is "here", "vor" "before",
	// Spanish "hace" "makes", French "il y a" "there is"; a month's name
	// alone, or after "am", is a word.
	none := []string{"was habe ich hier notiert", "vor dem Essen", "hace frío", "il y a un chat", "Mai Tai Rezept", "I am may", "mars est rouge"}
	checkFind(t, lisbonSaturday(t), []findCase{
		// German
		{"Was habe ich gestern gemacht?", "2026-11-27", "2026-11-27", "gestern"},
		{"was war vorgestern", "2026-11-26", "2026-11-26", "vorgestern"},
		{"Wo habe ich letzte Woche gegessen?", "2026-11-16", "2026-11-22", "letzte Woche"},
		{"wen habe ich letzten Samstag getroffen", "2026-11-21", "2026-11-21", "letzten Samstag"},
		{"was habe ich am Freitag gekocht", "2026-11-27", "2026-11-27", "am Freitag"},
		{"welches Buch habe ich im Oktober beendet", "2026-10-01", "2026-10-31", "im Oktober"},
		{"was war am 3. November", "2026-11-03", "2026-11-03", "am 3. November"},
		{"was habe ich vor drei Tagen gekocht", "2026-11-25", "2026-11-25", "vor drei Tagen"},
		{"Notizen von heute Morgen", "2026-11-28", "2026-11-28", "heute Morgen"},
		{"letzten Monat", "2026-10-01", "2026-10-31", "letzten Monat"},
		{"letztes Wochenende", "2026-11-21", "2026-11-22", "letztes Wochenende"},
		// French
		{"qu'est-ce que j'ai fait hier ?", "2026-11-27", "2026-11-27", "hier"},
		{"avant-hier", "2026-11-26", "2026-11-26", "avant-hier"},
		{"où ai-je dîné la semaine dernière", "2026-11-16", "2026-11-22", "la semaine dernière"},
		{"qui ai-je vu samedi dernier", "2026-11-21", "2026-11-21", "samedi dernier"},
		{"quel livre ai-je fini en octobre", "2026-10-01", "2026-10-31", "en octobre"},
		{"que s'est-il passé le 3 novembre", "2026-11-03", "2026-11-03", "le 3 novembre"},
		{"qu'ai-je cuisiné il y a deux semaines", "2026-11-11", "2026-11-17", "il y a deux semaines"},
		{"ce matin", "2026-11-28", "2026-11-28", "ce matin"},
		{"hier soir", "2026-11-27", "2026-11-27", "hier soir"},
		{"aujourd'hui", "2026-11-28", "2026-11-28", "aujourd'hui"},
		{"le mois dernier", "2026-10-01", "2026-10-31", "le mois dernier"},
		{"le week-end dernier", "2026-11-21", "2026-11-22", "le week-end dernier"},
		// Spanish
		{"¿qué hice ayer?", "2026-11-27", "2026-11-27", "ayer"},
		{"¿dónde cené la semana pasada?", "2026-11-16", "2026-11-22", "la semana pasada"},
		{"¿a quién vi el sábado pasado?", "2026-11-21", "2026-11-21", "el sábado pasado"},
		{"qué libro terminé en octubre", "2026-10-01", "2026-10-31", "en octubre"},
		{"qué pasó el 3 de noviembre", "2026-11-03", "2026-11-03", "el 3 de noviembre"},
		{"el 3 de noviembre de 2025", "2025-11-03", "2025-11-03", "el 3 de noviembre de 2025"},
		{"qué cociné hace dos días", "2026-11-26", "2026-11-26", "hace dos días"},
		{"esta mañana", "2026-11-28", "2026-11-28", "esta mañana"},
		{"antes de ayer", "2026-11-26", "2026-11-26", "antes de ayer"},
		{"el año pasado", "2025-01-01", "2025-12-31", "el año pasado"},
	}, none)
}
