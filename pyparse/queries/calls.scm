; Every call expression; the analyzers judge the callee and its context in Go.
(call
  function: (_) @callee
  arguments: (_) @args) @call
