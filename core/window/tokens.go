package window

import (
	"math"
	"unicode/utf8"
)

// Token counts are estimated from characters. The default ratio is
// deliberately pessimistic (English runs near 4 characters a token), so an
// uncalibrated estimate errs towards cutting history rather than letting
// Ollama silently drop the front of the prompt. Once a reply reports
// prompt_eval_count, the measured ratio for that model replaces it.
const (
	defaultCharsPerToken = 3.0
	minCharsPerToken     = 0.5 // CJK text, or a byte tokenizer under a template of long role markers
	MaxCharsPerToken     = 6.0
	// messageOverhead covers the chat template's role markers per message.
	messageOverhead = 6
)

// estimator turns text into an estimated token count.
type estimator struct{ charsPerToken float64 }

func newEstimator(calibrated float64) estimator {
	if calibrated < minCharsPerToken || calibrated > MaxCharsPerToken {
		calibrated = defaultCharsPerToken
	}
	return estimator{charsPerToken: calibrated}
}

func (e estimator) tokens(s string) int { return e.runes(utf8.RuneCountInString(s)) }

// runes is the estimate for a text of n runes.
func (e estimator) runes(n int) int { return int(math.Ceil(float64(n) / e.charsPerToken)) }

func (e estimator) message(m Message) int { return e.tokens(m.Content) + messageOverhead }

// Calibrate blends a new measurement (characters sent / prompt_eval_count)
// into the stored ratio. Only prompts large enough to measure are used, and
// the blend keeps one odd reply from swinging the budget.
func Calibrate(old float64, chars, promptEvalCount int) (float64, bool) {
	if promptEvalCount < 50 || chars < 200 {
		return old, false
	}
	measured := float64(chars) / float64(promptEvalCount)
	measured = math.Max(minCharsPerToken, math.Min(MaxCharsPerToken, measured))
	if old < minCharsPerToken || old > MaxCharsPerToken {
		return measured, true
	}
	return 0.5*old + 0.5*measured, true
}

// Tokens is s's size by the default (uncalibrated, so never moving)
// estimate: what the identity section's budgets count.
func Tokens(s string) int { return newEstimator(0).tokens(s) }
