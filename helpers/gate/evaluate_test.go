package gate

// Evaluate is EvaluateWith with no optional demand: the gate's tests judge a folder so.
func Evaluate(dir string, req *Required, expect []string) (*Verdict, error) {
	return EvaluateWith(dir, req, expect, Options{})
}
