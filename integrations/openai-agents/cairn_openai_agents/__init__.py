"""Cairn for the OpenAI Agents SDK: `remember`, `recall` and `context` as
function tools.

    from agents import Agent
    from cairn_memory import Cairn
    from cairn_openai_agents import cairn_tools
    agent = Agent(name="assistant", tools=cairn_tools(Cairn(URL, api_key=KEY), project="atlas"))
"""

from .tools import MemoryType, cairn_tools

__all__ = ["MemoryType", "cairn_tools"]
