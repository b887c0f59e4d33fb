/** JSON-in-TEXT columns: the appliance's list fields (roles, gids, sudo commands). */
export function fromJsonColumn<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}

export function toJsonColumn(value: unknown): string {
  return JSON.stringify(value);
}

export function bool(v: unknown): boolean {
  return v === 1 || v === true;
}
