// @flow
"use strict";

import express from "express";
import type { $Request, $Response } from "express";
import { quoteRate } from "./carriers";

export type Parcel = {|
  +id: string,
  weightGrams: number,
  zone: ?string,
|};

export type Quotes = { [carrier: string]: number };

const router = express.Router();

/** Quotes every carrier for one parcel, cheapest first. */
async function quoteParcel(req: $Request, res: $Response): Promise<void> {
  const parcel: Parcel = (req.body: any);
  const quotes: Quotes = {};
  for (const carrier of ["post", "courier"]) {
    quotes[carrier] = await quoteRate(carrier, parcel.weightGrams, parcel.zone ?? "domestic");
  }
  res.json(Object.entries(quotes).sort((a, b) => Number(a[1]) - Number(b[1])));
}

router.post("/parcels/quote", quoteParcel);

export class LabelQueue<T: { id: string }> {
  pending: Array<T> = [];
  +limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  push(item: T): boolean {
    if (this.pending.length >= this.limit) {
      return false;
    }
    this.pending.push(item);
    return true;
  }

  drain(): Array<T> {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

export default router;
