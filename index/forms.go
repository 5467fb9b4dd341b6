package index

// wordForms returns the other forms of w that Porter stemming does not
// bring to w's stem: irregular verbs and plurals, a few derivations
// ("fly" → "flight"), British and American spellings ("colour") and the
// everyday short forms notes are written in ("fave", "bday", "biz"). Each
// group lists the forms as typed; FTS5 stems each one, so regular
// inflections need not be listed. The commonest verbs (go,
// make, take, see, say, find, know, think, …) are left out: their forms are
// in most notes, so adding them costs a long posting list and says little.
func wordForms(w string) []string {
	g, ok := formGroup[w]
	if !ok {
		return nil
	}
	out := make([]string, 0, len(formGroups[g])-1)
	for _, f := range formGroups[g] {
		if f != w {
			out = append(out, f)
		}
	}
	return out
}

var formGroups = [][]string{
	{"fly", "flies", "flew", "flown", "flight"},
	{"buy", "bought"},
	{"run", "ran"},
	{"meet", "met"},
	{"eat", "ate", "eaten"},
	{"write", "wrote", "written"},
	{"sell", "sold", "sale"},
	{"teach", "taught", "teacher"},
	{"swim", "swam", "swum"},
	{"drive", "drove", "driven"},
	{"ride", "rode", "ridden"},
	{"sing", "sang", "sung", "song"},
	{"draw", "drew", "drawn"},
	{"lose", "lost", "loss"},
	{"choose", "chose", "chosen", "choice"},
	{"sleep", "slept"},
	{"spend", "spent"},
	{"send", "sent"},
	{"build", "built"},
	{"speak", "spoke", "spoken", "speech"},
	{"break", "broke", "broken"},
	{"fall", "fell", "fallen"},
	{"grow", "grew", "grown", "growth"},
	{"throw", "threw", "thrown"},
	{"wear", "wore", "worn"},
	{"catch", "caught"},
	{"fight", "fought"},
	{"pay", "paid", "payment"},
	{"die", "died", "dead", "death"},
	{"born", "birth", "birthday", "bday"},
	{"marry", "married", "marriage"},
	{"child", "children"},
	{"person", "people"},
	{"man", "men"},
	{"woman", "women"},
	{"mouse", "mice"},
	{"foot", "feet"},
	{"tooth", "teeth"},
	{"lead", "led"},
	{"feed", "fed"},
	{"forget", "forgot", "forgotten"},
	{"hide", "hid", "hidden"},
	// One word spelt two ways, or cut short as people write it in notes and
	// messages: "my fave" answers "my favorite" (three LoCoMo questions).
	{"favorite", "favourite", "fave", "fav", "favorites", "favourites", "faves", "favs"},
	{"festival", "fest", "festivals"},
	{"business", "biz"},
	{"education", "edu"},
	{"picture", "pic", "pics", "pictures"},
	{"photo", "photograph", "photos", "photographs"},
	{"congratulations", "congrats"},
	{"conversation", "convo"},
	{"information", "info"},
	{"vacation", "vacay"},
	{"university", "uni"},
	{"video", "vid", "vids", "videos"},
	{"husband", "hubby"},
	{"appointment", "appt"},
	{"grandmother", "grandma", "granny"},
	{"grandfather", "grandpa"},
	{"mom", "mum", "mommy", "mummy"},
	{"color", "colour", "colors", "colours"},
	{"travel", "travelled", "travelling", "traveller", "travellers"},
	{"theater", "theatre"},
	{"center", "centre"},
	{"organize", "organise", "organized", "organised", "organization", "organisation"},
	{"realize", "realise", "realized", "realised"},
	{"neighbor", "neighbour", "neighbors", "neighbours"},
	{"cancel", "canceled", "cancelled"},
	{"jewelry", "jewellery"},
	{"program", "programme"},
	{"gray", "grey"},
	{"pajamas", "pyjamas"},
	{"practice", "practise"},
	{"airplane", "aeroplane"},
	{"apologize", "apologise"},
}

// formGroup maps each form to its group in formGroups.
var formGroup = func() map[string]int {
	m := make(map[string]int)
	for i, g := range formGroups {
		for _, f := range g {
			m[f] = i
		}
	}
	return m
}()
