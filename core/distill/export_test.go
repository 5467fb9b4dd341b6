package distill

// SetStage lets a test run code (a kill -9) at each point between writes.
func SetStage(f func(string)) { stage = f }
