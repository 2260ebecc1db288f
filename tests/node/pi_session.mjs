// A real pi agent session with a scripted (faux) model: the model calls the bash tool with each
// command given on the command line; the real bash tool runs only what the extensions allow.
// Prints one JSON line per tool result. Usage: node pi_session.mjs CWD COMMAND...
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	AuthStorage, createAgentSession, DefaultResourceLoader, ModelRegistry, SessionManager, SettingsManager,
} from "@mariozechner/pi-coding-agent";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from "@mariozechner/pi-ai";

const [cwd, ...commands] = process.argv.slice(2);
const faux = registerFauxProvider();
faux.setResponses([
	...commands.map((command, i) =>
		fauxAssistantMessage([fauxToolCall("bash", { command }, { id: `call-${i}` })], { stopReason: "toolUse" })),
	fauxAssistantMessage("done"),
]);
const agentDir = mkdtempSync(join(tmpdir(), "pi-agent-"));
const authStorage = AuthStorage.inMemory();
authStorage.setRuntimeApiKey?.(faux.getModel().provider, "faux-key");
const modelRegistry = ModelRegistry.inMemory(authStorage);
const settingsManager = SettingsManager.inMemory();
const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager });
await resourceLoader.reload();
const { session } = await createAgentSession({
	cwd, agentDir, model: faux.getModel(), authStorage, modelRegistry, resourceLoader, settingsManager,
	sessionManager: SessionManager.inMemory(cwd), tools: ["bash"],
});
await session.prompt("run the commands");
for (const m of session.messages) {
	if (m.role === "toolResult") {
		const text = (m.content || []).map((c) => c.text || "").join("");
		console.log(JSON.stringify({ tool: m.toolName, isError: !!m.isError, text }));
	}
}
process.exit(0);
