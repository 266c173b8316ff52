"""Hosts: front-ends that drive a Runtime and render its records."""
