"""What an operator sees: error reports, log handlers, Prometheus metrics, health, the provider call log and state, the
task queues' state."""
