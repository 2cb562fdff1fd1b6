"use strict";

const express = require("express");

const router = express.Router();

class TileCache {
  constructor() {
    this.entries = new Map();
  }

  get(key) {
    return this.entries.get(key);
  }
}

function mount(path, handler) {
  router.get(path, handler);
}

router.get("/tiles/:z/:x/:y", (req, res) => res.end());
mount("/tiles/legend", (req, res) => res.json({}));

async function upstream(path) {
  return fetch(process.env.TILE_SERVER + path);
}

router.get("/styles", async (req, res) => res.json(await upstream("/styles/default.json")));

module.exports = { router, TileCache };
