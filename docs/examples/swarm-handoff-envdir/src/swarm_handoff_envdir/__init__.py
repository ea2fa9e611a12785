"""Example swarm-handoff plugin: skills in the folder named by $SKILLS_ENVDIR."""
