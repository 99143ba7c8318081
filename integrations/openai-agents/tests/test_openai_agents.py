"""The Cairn function tools against a live server: called through the
SDK's FunctionTool interface, and by an Agent run on a scripted model."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, List

from agents import Agent, FunctionTool, Runner, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.tool_context import ToolContext
from agents.usage import Usage
from cairn_memory import Cairn
from cairn_openai_agents import cairn_tools
from conftest import new_key
from openai.types.responses import (ResponseFunctionToolCall, ResponseOutputMessage,
                                    ResponseOutputText)

set_tracing_disabled(True)


def invoke(tool: FunctionTool, **arguments: Any) -> str:
    args = json.dumps(arguments)
    ctx = ToolContext(context=None, tool_name=tool.name, tool_call_id="call-1", tool_arguments=args)
    return asyncio.run(tool.on_invoke_tool(ctx, args))


def test_the_tools_through_function_tool(cairn: Cairn) -> None:
    tools = {t.name: t for t in cairn_tools(cairn, project="atlas")}
    assert set(tools) == {"remember", "recall", "context"}
    schema = tools["remember"].params_json_schema
    assert schema["required"] == ["content", "type", "tags"] and "fact" in str(schema["properties"]["type"])

    said = invoke(tools["remember"], content="Staging runs on a Hetzner box in Helsinki", type="fact",
                  tags=["infra"])
    assert said.startswith("Remembered [") and "(created)" in said
    (m,) = cairn.list(project="atlas")
    assert (m.content, m.kind, m.project, m.tags) == (
        "Staging runs on a Hetzner box in Helsinki", "fact", "atlas", ["infra"])
    invoke(tools["remember"], content="Always run the migrations before the deploy", type="rule", tags=None)

    found = invoke(tools["recall"], query="where does staging run?", type=None)
    assert found.splitlines()[0].endswith("(fact) Staging runs on a Hetzner box in Helsinki")
    assert "Hetzner" not in invoke(tools["recall"], query="staging", type="rule")
    assert "Always run the migrations" in invoke(tools["context"], topic="deploying staging")


def test_errors_are_answers_the_model_can_read(url: str, cairn: Cairn) -> None:
    tools = {t.name: t for t in cairn_tools(cairn)}
    assert invoke(tools["remember"], content="", type=None, tags=None).startswith("Cairn refused:")
    with Cairn(url, api_key=new_key("read")) as reader:
        refused = invoke({t.name: t for t in cairn_tools(reader)}["remember"], content="x", type=None,
                         tags=None)
    assert refused.startswith("Cairn refused:") and "forbidden" in refused
    assert invoke(tools["recall"], query="anything", type=None) == "Nothing relevant is remembered."


class ScriptedModel(Model):
    """Answers each turn with the next scripted output (tool calls or text)
    and records what it was given."""

    def __init__(self, turns: List[list]) -> None:
        self.turns = turns
        self.inputs: List[Any] = []

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, **kwargs: Any) -> ModelResponse:
        self.inputs.append(input)
        return ModelResponse(output=self.turns.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


def call(name: str, n: int, **arguments: Any) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(type="function_call", id=f"fc-{n}", call_id=f"call-{n}", name=name,
                                    arguments=json.dumps(arguments), status="completed")


def say(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg-1", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text,
                                                             annotations=[])])


def test_an_agent_remembers_and_recalls(cairn: Cairn) -> None:
    model = ScriptedModel([
        [call("remember", 1, content="Ada deploys atlas on Fridays", type="fact", tags=["ada"])],
        [call("recall", 2, query="when does Ada deploy?", type=None)],
        [say("On Fridays.")],
    ])
    agent = Agent(name="assistant", instructions="Use your memory.", model=model,
                  tools=cairn_tools(cairn, project="atlas"))
    result = Runner.run_sync(agent, "Remember that I deploy on Fridays, then tell me when I deploy.")
    assert result.final_output == "On Fridays."
    assert [m.content for m in cairn.list(project="atlas")] == ["Ada deploys atlas on Fridays"]
    outputs = [i for i in model.inputs[2] if isinstance(i, dict) and i.get("type") == "function_call_output"]
    assert outputs[-1]["call_id"] == "call-2"
    assert "(fact) Ada deploys atlas on Fridays" in str(outputs[-1]["output"]), "the model saw the recall"
