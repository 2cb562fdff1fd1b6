terraform {
  required_version = ">= 1.6"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.40"
    }
  }
  backend "s3" {
    bucket = "acme-outfitters-tfstate"
    key    = "platform/shop.tfstate"
    region = "us-east-1"
  }
}

provider "aws" {
  region = var.region
}

# shopdb: the one Postgres database shared by catalog, checkout and accounts
# (see docs/adr/0001-shared-postgres.md).
resource "aws_db_instance" "shopdb" {
  identifier              = "shopdb"
  engine                  = "postgres"
  engine_version          = "16.2"
  instance_class          = var.db_instance_class
  allocated_storage       = 100
  db_name                 = "shopdb"
  username                = "shop_admin"
  manage_master_user_password = true
  multi_az                = true
  backup_retention_period = 14
  deletion_protection     = true
  vpc_security_group_ids  = [aws_security_group.shopdb.id]
}

resource "aws_security_group" "shopdb" {
  name        = "shopdb"
  description = "Postgres from the shop cluster"
  vpc_id      = var.vpc_id

  ingress {
    from_port   = 5432
    to_port     = 5432
    protocol    = "tcp"
    cidr_blocks = [var.cluster_cidr]
  }
}

# Kafka for order events: orders.placed (ADR 0002).
resource "aws_msk_cluster" "shop" {
  cluster_name           = "acme-shop"
  kafka_version          = "3.6.0"
  number_of_broker_nodes = 2

  broker_node_group_info {
    instance_type   = "kafka.m5.large"
    client_subnets  = var.private_subnets
    security_groups = [aws_security_group.shopdb.id]
  }
}

resource "aws_elasticache_cluster" "carts" {
  cluster_id      = "shop-carts"
  engine          = "redis"
  node_type       = "cache.t4g.medium"
  num_cache_nodes = 1
  port            = 6379
}
