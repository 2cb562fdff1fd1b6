"use strict";

const express = require("express");
const { fetchInventory } = require("./inventory");

const router = express.Router();

/** Lists stock for one warehouse. */
async function listStock(req, res) {
  const items = await fetchInventory(req.params.warehouse);
  res.json(items.map((i) => ({ sku: i.sku, available: i.available })));
}

router.get("/warehouses/:warehouse/stock", listStock);

class StockCache {
  constructor(ttlMs) {
    this.ttlMs = ttlMs;
    this.entries = new Map();
  }

  get(key) {
    const hit = this.entries.get(key);
    return hit && hit.expires > Date.now() ? hit.value : undefined;
  }
}

module.exports = { router, StockCache };
