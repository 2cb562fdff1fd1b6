output "shopdb_endpoint" {
  value = aws_db_instance.shopdb.endpoint
}

output "kafka_bootstrap_brokers" {
  value = aws_msk_cluster.shop.bootstrap_brokers
}
