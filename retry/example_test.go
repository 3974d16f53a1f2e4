package retry_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/retry"
)

// serviceError builds the error aztables returns for a failed response.
func serviceError(method, path string, status int, code string) error {
	u, _ := url.Parse("https://account.table.core.windows.net" + path)
	resp := &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody,
		Request: &http.Request{Method: method, URL: u}}
	return runtime.NewResponseErrorWithErrorCode(resp, code)
}

// Do repeats an operation while it fails with retryable errors; here the
// service is busy twice and then succeeds.
func ExampleDo() {
	p := retry.Policy{
		InitialInterval: 10 * time.Millisecond,
		OnRetry: func(ev retry.Event) {
			fmt.Printf("attempt %d failed with %d %s, retrying\n", ev.Attempt, ev.Status, ev.Code)
		},
	}
	attempts := 0
	err := retry.Do(context.Background(), &p, func(ctx context.Context) error {
		attempts++
		if attempts < 3 {
			return serviceError(http.MethodPut, "/orders(PartitionKey='p',RowKey='r')", 503, "ServerBusy")
		}
		return nil
	})
	fmt.Println("err:", err, "attempts:", attempts)
	// Output:
	// attempt 1 failed with 503 ServerBusy, retrying
	// attempt 2 failed with 503 ServerBusy, retrying
	// err: <nil> attempts: 3
}

// Do returns a permanent error at once, and wraps the last error when it
// gives up; errors.As still finds the *azcore.ResponseError.
func ExampleDo_errors() {
	notFound := retry.Do(context.Background(), nil, func(ctx context.Context) error {
		return serviceError(http.MethodGet, "/orders", 404, "ResourceNotFound")
	})
	var re *azcore.ResponseError
	fmt.Println(errors.As(notFound, &re), re.StatusCode, errors.Is(notFound, tablekit.ErrUnavailable))

	busy := retry.Do(context.Background(), &retry.Policy{InitialInterval: time.Millisecond, MaxAttempts: 2},
		func(ctx context.Context) error {
			return serviceError(http.MethodGet, "/orders", 503, "ServerBusy")
		})
	fmt.Println(errors.As(busy, &re), re.StatusCode, errors.Is(busy, tablekit.ErrThrottled))
	// Output:
	// true 404 false
	// true 503 true
}

// NewPipelinePolicy makes every method of an existing aztables client retry
// by the policy. azcore's own retry is switched off so that there is one
// retry layer. A conflict is not retried: no retry can make it succeed.
func ExampleNewPipelinePolicy() {
	ctx := context.Background()
	p := retry.Default()
	p.OnRetry = retry.SlogHook(slog.Default()) // 503s, resets, ... are retried and logged
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{
		Retry:           policy.RetryOptions{MaxRetries: -1},
		PerCallPolicies: []policy.Policy{retry.NewPipelinePolicy(&p)},
	}}
	svc, err := aztables.NewServiceClientFromConnectionString(os.Getenv("TABLEKIT_CONNECTION_STRING"), opts)
	if err != nil {
		log.Fatal(err)
	}
	client := svc.NewClient("exampleretrypolicy")
	if _, err := client.CreateTable(ctx, nil); err != nil {
		log.Fatal(err)
	}
	defer client.Delete(ctx, nil)

	if _, err := client.AddEntity(ctx, []byte(`{"PartitionKey":"alice","RowKey":"0042"}`), nil); err != nil {
		log.Fatal(err)
	}
	_, err = client.AddEntity(ctx, []byte(`{"PartitionKey":"alice","RowKey":"0042"}`), nil)
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		fmt.Println(re.StatusCode, re.ErrorCode, "retryable:", retry.IsRetryable(err))
	}
	// Output: 409 EntityAlreadyExists retryable: false
}

// IsRetryable tells permanent failures from transient ones.
func ExampleIsRetryable() {
	for _, err := range []error{
		serviceError(http.MethodPut, "/orders(PartitionKey='p',RowKey='r')", 503, "ServerBusy"),
		serviceError(http.MethodPut, "/orders(PartitionKey='p',RowKey='r')", 500, "OperationTimedOut"),
		serviceError(http.MethodPut, "/orders(PartitionKey='p',RowKey='r')", 412, "UpdateConditionNotSatisfied"),
		serviceError(http.MethodPost, "/Tables", 409, "TableBeingDeleted"),
		serviceError(http.MethodPost, "/orders", 409, "EntityAlreadyExists"),
		context.Canceled,
	} {
		var re *azcore.ResponseError
		if errors.As(err, &re) {
			fmt.Printf("%d %-28s %v\n", re.StatusCode, re.ErrorCode, retry.IsRetryable(err))
		} else {
			fmt.Printf("%-32v %v\n", err, retry.IsRetryable(err))
		}
	}
	// Output:
	// 503 ServerBusy                   true
	// 500 OperationTimedOut            true
	// 412 UpdateConditionNotSatisfied  false
	// 409 TableBeingDeleted            true
	// 409 EntityAlreadyExists          false
	// context canceled                 false
}

// SlogHook logs each retry at Warn, without query strings.
func ExampleSlogHook() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // stable output
			}
			return a
		},
	}))
	hook := retry.SlogHook(logger)
	hook(retry.Event{Attempt: 1, Delay: 500 * time.Millisecond, Status: 503, Code: "ServerBusy",
		Err: serviceError(http.MethodPut, "/orders", 503, "ServerBusy"), Method: "PUT", Path: "/orders"})
	// Output:
	// level=WARN msg="retry: retrying request" attempt=1 delay=500ms status=503 code=ServerBusy method=PUT path=/orders
}
