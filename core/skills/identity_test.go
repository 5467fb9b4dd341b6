package skills

import (
	"fmt"
	"strings"
	"testing"
)

// quarter counts tokens as characters / 4, rounded up: this package cannot
// reach core's estimator (core's own test uses it, TestSkillsIdentityLinesBudget).
func quarter(s string) int { return (len([]rune(s)) + 3) / 4 }

func skillsN(n, descLen int) []Skill {
	var out []Skill
	for i := range n {
		out = append(out, Skill{Name: fmt.Sprintf("skill-%02d", i), Description: strings.Repeat("word ", descLen/5)})
	}
	return out
}

func cost(lines []string) int {
	n := 0
	for _, l := range lines {
		n += quarter("- " + l + "\n")
	}
	return n
}

func TestIdentityLinesTiers(t *testing.T) {
	if l, cut := IdentityLines(nil, 100, quarter); l != nil || cut != "" {
		t.Fatalf("no skills = %q, %q", l, cut)
	}
	// Under budget: whole descriptions, nothing cut.
	l, cut := IdentityLines(skillsN(3, 40), 200, quarter)
	if len(l) != 4 || cut != "" || l[1] != "skill-00: word word word word word word word word" || cost(l) > 200 {
		t.Fatalf("full = %q, %q", l, cut)
	}
	// Over: every description cut alike, still all listed.
	l, cut = IdentityLines(skillsN(10, 200), 200, quarter)
	if len(l) != 11 || !strings.HasPrefix(cut, "skills: descriptions cut to") || cost(l) > 200 || !strings.HasSuffix(l[10], "…") {
		t.Fatalf("short = %q, %q (%d tokens)", l, cut, cost(l))
	}
	// Far over: names only, as many as fit, and how many more.
	l, cut = IdentityLines(skillsN(60, 200), 120, quarter)
	if len(l) != 1 || cost(l) > 120 || !strings.Contains(l[0], "skill-00, skill-01") || !strings.HasSuffix(l[0], "more (skill_read() lists them)") {
		t.Fatalf("names = %q (%d tokens)", l, cost(l))
	}
	var k, more int
	if _, err := fmt.Sscanf(cut, "skills: %d of 60 named", &k); err != nil || !strings.Contains(l[0], fmt.Sprintf("and %d more", 60-k)) {
		t.Fatalf("cut %q vs line %q (%v, %d)", cut, l[0], err, more)
	}
}
