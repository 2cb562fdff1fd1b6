export interface Line {
  sku: string;
  quantity: number;
  unitCents: number;
}

/**
 * Adds a product to the basket, merging it with an existing line of the same product.
 */
export function addLine(lines: Line[], line: Line): Line[] {
  const found = lines.find((l) => l.sku === line.sku);
  if (found) {
    found.quantity += line.quantity;
    return lines;
  }
  return [...lines, line];
}

/**
 * Computes what the basket costs before delivery, in cents.
 */
export function subtotal(lines: Line[]): number {
  return lines.reduce((sum, l) => sum + l.quantity * l.unitCents, 0);
}

/**
 * Removes every line whose quantity dropped to zero or below.
 */
export function dropEmpty(lines: Line[]): Line[] {
  return lines.filter((l) => l.quantity > 0);
}

/**
 * Saves the basket in the browser so that it survives a page reload.
 */
export function persist(lines: Line[], storage: Storage): void {
  storage.setItem("basket", JSON.stringify(lines));
}

/**
 * Reads the basket saved in the browser, or an empty one when nothing is saved.
 */
export function restore(storage: Storage): Line[] {
  const raw = storage.getItem("basket");
  return raw ? (JSON.parse(raw) as Line[]) : [];
}
