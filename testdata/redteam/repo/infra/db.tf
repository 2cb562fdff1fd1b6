resource "aws_db_instance" "orders" {
  engine   = "postgres"
  username = "orders"
  password = "RqTf2umuof40mT5"
}

variable "api_key" {
  type    = string
  default = "rqtfkey0ClTMLCHuRDsVqrYpJ8YkMyv"
}
