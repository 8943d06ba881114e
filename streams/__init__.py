"""Kafka: topic specs, wire schemas, the Faust app factory, producers, admin."""
