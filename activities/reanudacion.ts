/** The start reconciler, as the activities see it (implemented over Temporal's client in temporal/reanudador). */
export interface ReanudadorProcesos {
  /** Starts or joins the workflow of every operation still waiting; returns how many it looked at. */
  reanudarPendientes(): Promise<number>;
}

export interface DepsReanudacion {
  reanudador: ReanudadorProcesos;
}

export function crearActividadesReanudacion(d: DepsReanudacion) {
  return {
    /** The schedule's step: operations committed in MySQL whose workflow may never have started. */
    reanudarPendientes: () => d.reanudador.reanudarPendientes(),
  };
}
