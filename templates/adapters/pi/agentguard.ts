// agentguard for pi: blocks bash tool calls, write/edit calls and interactive `!cmd` commands
// that the agentguard decision command refuses. Written by `agentguard install`; do not edit
// (`agentguard doctor` checks it byte for byte). It imports nothing from pi itself, so it works
// with @mariozechner/pi-coding-agent 0.73 and its 1.x rename alike.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";

const TIMEOUT_MS = Number("@TIMEOUT@") * 1000;
const INVOLVES = new RegExp("@INVOLVES_JSON@", "i");

type Decision = { block: boolean; reason: string };

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
	return new Promise((resolve) => {
		const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_")));
		let child;
		try {
			child = spawn(cmd, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "ignore"] });
		} catch {
			resolve({ code: null, out: "" });
			return;
		}
		let out = "";
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid!, "SIGKILL"); // the whole process group
			} catch {}
			resolve({ code: null, out: "" });
		}, TIMEOUT_MS);
		child.stdout!.on("data", (d: Buffer) => (out += d.toString("utf8")));
		child.on("error", () => {
			clearTimeout(timer);
			resolve({ code: null, out: "" });
		});
		child.on("close", (code: number | null) => {
			clearTimeout(timer);
			resolve({ code, out });
		});
	});
}

function fallback(subject: string, why: string): Decision {
	if (INVOLVES.test(subject)) {
		return {
			block: true,
			reason: `agentguard: blocked this command because agentguard could not check it (${why}) [rule: guard-error]. Instead: run \`agentguard doctor\`.`,
		};
	}
	return { block: false, reason: "" };
}

async function decide(home: string, cwd: string, args: string[], subject: string): Promise<Decision> {
	try {
		const git = await run("git", ["rev-parse", "--git-common-dir"], home);
		if (git.code !== 0) return fallback(subject, "no repository");
		const dir = git.out.trim();
		const check = join(isAbsolute(dir) ? dir : join(home, dir), "agentguard", "check");
		if (!existsSync(check)) return fallback(subject, "runtime missing");
		const res = await run(check, ["--cwd", cwd, "--json", ...args], cwd);
		if (res.code === null) return fallback(subject, "timed out");
		const data = JSON.parse(res.out);
		if (data.decision === "allow" && res.code === 0) return { block: false, reason: "" };
		return { block: true, reason: String(data.reason || "agentguard: blocked") };
	} catch (err) {
		return fallback(subject, "error");
	}
}

export default function agentguard(pi: any) {
	pi.on("tool_call", async (event: any, ctx: any) => {
		const cwd: string = ctx?.cwd || process.cwd();
		let d: Decision | undefined;
		if (event.toolName === "bash") {
			const command = String(event.input?.command ?? "");
			d = await decide(cwd, cwd, ["--", command], command);
		} else if (event.toolName === "write" || event.toolName === "edit") {
			const path = String(event.input?.path ?? "");
			d = await decide(cwd, cwd, ["--write", path], path);
		}
		if (d?.block) return { block: true, reason: d.reason };
		return undefined;
	});
	pi.on("user_bash", async (event: any) => {
		const cwd: string = event?.cwd || process.cwd();
		const command = String(event?.command ?? "");
		let d: Decision;
		try {
			d = await decide(cwd, cwd, ["--", command], command);
		} catch {
			d = fallback(command, "error"); // a throwing user_bash handler would fail open
		}
		if (d.block) return { result: { output: d.reason + "\n", exitCode: 1, cancelled: false, truncated: false } };
		return undefined;
	});
}
