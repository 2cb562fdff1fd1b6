const express = require('express');

const stockHost = process.env.STOCK_HOST || 'stock';
const mongoUrl = process.env.MONGO_URL ?? 'mongodb://mongo:27017/shelf';
const port = process.env['SHELF_PORT'] || 8080;

async function stock(sku) {
  const res = await fetch(`http://${stockHost}:8080/stock/${sku}`);
  return res.json();
}

module.exports = { stock, mongoUrl, port };
