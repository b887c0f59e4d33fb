// What 26.0 changed in the service.* methods (`git diff TS-25.10.1:MW/api/v25_10_1/service.py
// stable/26:MW/api/v26_0_0/service.py`): the models of query, get_instance, update, control,
// started and started_or_enabled are 25.10.1's, only their docstrings moved into `Field`s; the
// Args/Result models of start, stop, restart and reload are gone, and MW/plugins/service.py makes
// those four `@private` (stable/26 :162, :247, :283, :373): service.control is the one way to run
// a service there. What 26.0's plugin does differently is the emulator's (appliance/services/).

/** The service.* methods 26.0 no longer serves. */
export const serviceNamespaceRemoved26: readonly string[] = [
  'service.start',
  'service.stop',
  'service.restart',
  'service.reload',
];
