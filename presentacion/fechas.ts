/** Timestamps as the API shows them: ISO 8601 in UTC. */
export const iso = (d: Date | string) => new Date(d).toISOString();
export const isoONulo = (d: Date | string | null) => (d === null ? null : iso(d));
