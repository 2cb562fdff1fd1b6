variable "region" {
  type    = string
  default = "us-east-1"
}

variable "vpc_id" {
  type = string
}

variable "cluster_cidr" {
  type        = string
  description = "CIDR of the Kubernetes cluster that runs the shop"
}

variable "private_subnets" {
  type = list(string)
}

variable "db_instance_class" {
  type    = string
  default = "db.r6g.large"
}
