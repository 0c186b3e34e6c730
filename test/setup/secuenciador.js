const Sequencer = require('@jest/test-sequencer').default;

/**
 * The end-to-end files that spend most of their time waiting on purpose (servers killed and restarted, workers
 * killed, PAC faults running into timeouts) start first: their waits then overlap with the CPU-bound files in
 * the other jest workers instead of trailing at the end of the run. The scale-out file (escala) goes with them:
 * its processes' start is CPU, but after its kills it waits on Temporal's timeouts. Jest's own order (by the last run's
 * durations, else by size) holds among the rest; a fresh clone has no last run.
 */
const ESPERAN =
  /\/(reinicios-[^/]*|matriz-fallas[^/]*|pagos-fallas|facturas-fallas|runbook-ops|escala)\.test\.ts$/;

class Secuenciador extends Sequencer {
  async sort(pruebas) {
    const orden = await super.sort(pruebas);
    return [...orden.filter((p) => ESPERAN.test(p.path)), ...orden.filter((p) => !ESPERAN.test(p.path))];
  }
}

module.exports = Secuenciador;
