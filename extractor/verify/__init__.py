"""Reconciliation of replicas with the source."""
