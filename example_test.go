package tablekit_test

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/table"
)

// Bad input is refused before any request: errors.Is gives the outcome,
// errors.As the detail.
func Example() {
	type Order struct {
		PartitionKey, RowKey string
		Total                float64
	}
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		panic(err)
	}
	_, err = table.New[Order](svc, "1-orders")
	var ve *tablekit.ValidationError
	if errors.Is(err, tablekit.ErrInvalid) && errors.As(err, &ve) {
		fmt.Println("refused:", ve.Field)
	}
	// Output: refused: table name
}
