# The orders database.
resource "aws_db_instance" "orders" {
  engine         = "postgres"
  instance_class = var.db_class
}

# Who may reach it.
resource "aws_security_group" "orders_db" {
  name = "orders-db"
}

module "vpc" {
  source = "terraform-aws-modules/vpc/aws"
}

data "aws_caller_identity" "current" {}
