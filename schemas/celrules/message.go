package celrules

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/google/cel-go/interpreter"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// evalMessageExpression evaluates a failed rule's messageExpression with
// the budget left, as kube does: it returns the message and the budget
// after it, or an error whose type says what follows. Internal and
// Invalid errors end the validation; any other falls back to the rule's
// message.
func evalMessageExpression(ctx context.Context, rl *compiledRule, act interpreter.Activation, budget int64) (string, int64, *apiservercel.Error) {
	src := rl.spec.MessageExpression
	result, details, err := rl.MessageExpression.ContextEval(ctx, act)
	if details == nil || details.ActualCost() == nil {
		return "", -1, &apiservercel.Error{Type: apiservercel.ErrorTypeInternal,
			Detail: fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", src)}
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > budget {
		return "", -1, &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid,
			Detail: "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"}
	}
	if err != nil && strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
		return "", -1, &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid,
			Detail: fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", src)}
	}
	budget -= int64(cost)
	if err != nil {
		return "", budget, &apiservercel.Error{Detail: fmt.Sprintf("messageExpression evaluation failed due to: %v", err.Error())}
	}
	msg, problem := messageText(result.Value())
	if problem != "" {
		return "", budget, &apiservercel.Error{Detail: problem}
	}
	return msg, budget, nil
}

// messageText is a messageExpression's result as a message, or what is
// wrong with it.
func messageText(v any) (string, string) {
	s, ok := v.(string)
	if !ok {
		return "", "messageExpression failed to convert to string"
	}
	s = strings.TrimSpace(s)
	switch {
	case len(s) > celconfig.MaxEvaluatedMessageExpressionSizeBytes:
		return "", fmt.Sprintf("messageExpression beyond allowable length of %d", celconfig.MaxEvaluatedMessageExpressionSizeBytes)
	case strings.Contains(s, "\n"):
		return "", "messageExpression should not contain line breaks"
	case s == "":
		return "", "messageExpression should evaluate to a non-empty string"
	}
	return s, ""
}
