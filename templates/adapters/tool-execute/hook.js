import { spawn } from "node:child_process";

const HOOK = "@HOOK_SCRIPT_JSON@";
const TIMEOUT_MS = Number("@HOOK_TIMEOUT@") * 1000;
const INVOLVES = new RegExp("@INVOLVES_JSON@", "i");
// Quotes and backslashes hide a word from the pattern but not from the shell (g''it); an ANSI-C
// quoted word ($'\x67it') can spell anything.
const involves = (text) => INVOLVES.test(text.replace(/["'\\]/g, "")) || text.includes("$'");
const UNCHECKED = "@UNCHECKED_JSON@"; // {0}: why the after-check could not run

function hook(payload, cwd, event) {
	return new Promise((resolve) => {
		const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_")));
		let child;
		try {
			child = spawn("sh", ["-c", HOOK, "agentguard", "@HARNESS@", ...(event ? [event] : [])], {
				cwd, env, detached: true, stdio: ["pipe", "ignore", "pipe"],
			});
		} catch {
			resolve({ code: null, err: "" });
			return;
		}
		let err = "";
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid, "SIGKILL"); // the whole process group
			} catch {}
			resolve({ code: null, err: "" });
		}, TIMEOUT_MS);
		child.stderr.on("data", (d) => (err += d.toString("utf8")));
		child.on("error", () => {
			clearTimeout(timer);
			resolve({ code: null, err: "" });
		});
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, err });
		});
		child.stdin.on("error", () => {});
		child.stdin.end(payload);
	});
}

