package core

import (
	"fmt"
	"strings"

	"agent/core/skills"
)

// doctorSkills reports the skills found in the workspace and
// AGENT_SKILLS_PATH; any invalid one fails the check, with its reason. A
// broken skill never breaks a chat (it is left out), so doctor is where it
// is seen.
func doctorSkills(home string) DoctorCheck {
	cat := skills.Discover(skills.DefaultRoots(home))
	c := DoctorCheck{Name: "skills"}
	if len(cat.Invalid) == 0 {
		c.OK, c.Detail = true, doctorPlural(len(cat.Skills), "skill")
		if n := len(cat.Shadowed); n > 0 {
			c.Detail += fmt.Sprintf(", %d shadowed by one of the same name", n)
		}
		return c
	}
	var bad []string
	for _, p := range cat.Invalid {
		bad = append(bad, p.Path+": "+p.Reason)
	}
	c.Detail = fmt.Sprintf("%d invalid (left out of chats): %s", len(cat.Invalid), strings.Join(bad, "; "))
	c.Fix = "fix or remove each SKILL.md named (see: agent skills list)"
	return c
}
