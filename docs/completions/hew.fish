# fish completion for hew, the coding agent — installed as
# share/fish/vendor_completions.d/hew.fish. Completes subcommands, flags and their values.

set -l hew_subcommands config doctor history resume export import mcp trust checkpoints \
    diff restore debug help replay batch skills acp

# __hew_approve: the --auto-approve kinds, after what was already typed up to the last comma.
function __hew_approve
    set -l token (commandline -ct)
    set -l prefix (string replace -r '[^,]*$' '' -- $token)
    for k in read read-outside edit edit-outside commands all-commands mcp all none
        echo $prefix$k
    end
end

complete -c hew -f

# Subcommands, only as the first word.
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a config -d 'show the effective configuration'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a doctor -d 'check that everything hew needs is in place'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a history -d 'the stored tasks, newest first'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a resume -d 'go on with a stored task'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a export -d "a task as Cline's task directory"
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a import -d "a task from Cline's task directory"
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a mcp -d 'add, remove or import MCP servers'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a trust -d "trust a workspace's project files"
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a checkpoints -d "a task's checkpoints of the workspace"
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a diff -d 'changes between two checkpoints'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a restore -d 'back to a checkpoint'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a debug -d 'look inside hew'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a replay -d 'run a recorded task again, offline'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a batch -d 'run many tasks from a JSON-lines file'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a skills -d 'the Agent Skills the model is offered'
complete -c hew -n "not __fish_seen_subcommand_from $hew_subcommands" -a acp -d "be an editor's agent (Agent Client Protocol)"

# hew history show|delete ID; hew restore ID N files|task|both; hew debug WHAT.
complete -c hew -n "__fish_seen_subcommand_from history; and not __fish_seen_subcommand_from show delete" -a 'show delete'
complete -c hew -n "__fish_seen_subcommand_from restore" -a 'files task both'
complete -c hew -n "__fish_seen_subcommand_from debug; and not __fish_seen_subcommand_from parse sse decode markdown" -a 'parse sse decode markdown'
complete -c hew -n "__fish_seen_subcommand_from replay import" -F
complete -c hew -n "__fish_seen_subcommand_from batch" -F

# hew mcp add|remove|import|list.
complete -c hew -n "__fish_seen_subcommand_from mcp; and not __fish_seen_subcommand_from add remove import list" -a add -d 'add or replace a server'
complete -c hew -n "__fish_seen_subcommand_from mcp; and not __fish_seen_subcommand_from add remove import list" -a remove -d 'remove a server'
complete -c hew -n "__fish_seen_subcommand_from mcp; and not __fish_seen_subcommand_from add remove import list" -a import -d 'copy the servers of another settings file'
complete -c hew -n "__fish_seen_subcommand_from mcp; and not __fish_seen_subcommand_from add remove import list" -a list -d 'show the servers'
complete -c hew -n "__fish_seen_subcommand_from mcp" -l project -d "the project's .hew/mcp.json"
complete -c hew -n "__fish_seen_subcommand_from mcp" -l env -x -d 'an environment variable for the server'
complete -c hew -n "__fish_seen_subcommand_from mcp" -l url -x -d "the server's URL"
complete -c hew -n "__fish_seen_subcommand_from mcp" -l header -x -d 'an HTTP header for the server'
complete -c hew -n "__fish_seen_subcommand_from mcp" -l type -x -a 'http sse' -d 'the transport'

# hew trust [--show|--revoke|--list] [DIR].
complete -c hew -n "__fish_seen_subcommand_from trust" -l show -d 'show what is trusted'
complete -c hew -n "__fish_seen_subcommand_from trust" -l revoke -d 'revoke the trust'
complete -c hew -n "__fish_seen_subcommand_from trust" -l list -d 'list the trusted workspaces'
complete -c hew -n "__fish_seen_subcommand_from trust" -a '(__fish_complete_directories)'

# Options.
complete -c hew -s p -l print -d 'run the task headless and print its result'
complete -c hew -l json -d 'print every event as one JSON line'
complete -c hew -s v -l verbose -d 'show the conversation on standard error'
complete -c hew -l provider -x -a 'anthropic openai openai-compatible openrouter deepseek gemini xai groq' -d 'the provider'
complete -c hew -l model -x -d 'the model'
complete -c hew -l base-url -x -d 'the provider base URL'
complete -c hew -l protocol -x -a 'anthropic openai-chat openai-responses gemini' -d 'the wire protocol'
complete -c hew -l cwd -x -a '(__fish_complete_directories)' -d 'the workspace'
complete -c hew -l plan -d 'start in plan mode'
complete -c hew -l act -d 'start in act mode'
complete -c hew -l yolo -d 'approve every action'
complete -c hew -l auto-approve -x -a '(__hew_approve)' -d 'what runs without asking'
complete -c hew -l allow-command -x -d 'a command that may run like a read-only one'
complete -c hew -l deny-command -x -d 'a command never to run, even with --yolo'
complete -c hew -l sandbox -x -a 'auto read-only workspace-write danger-full-access' -d 'confine every command'
complete -c hew -s i -l image -r -F -d 'attach an image to the task (png, jpeg, gif, webp)'
complete -c hew -l thinking -x -d 'reasoning budget in tokens'
complete -c hew -l native-tools -d 'offer tools natively'
complete -c hew -l xml-tools -d 'offer tools as XML'
complete -c hew -l timeout -x -d 'give up after this many seconds'
complete -c hew -l max-cost -x -d 'stop once the task cost this many US dollars'
complete -c hew -l max-requests -x -d 'send at most this many requests'
complete -c hew -l retry-delay-ms -x -d 'base delay of automatic retries'
complete -c hew -l continue -d 'go on with the latest task in this workspace'
complete -c hew -l resume -x -d 'go on with a stored task'
complete -c hew -l no-config -d 'ignore the config files'
complete -c hew -l trust -d "use the workspace's .hew/mcp.json for this run only"
complete -c hew -l data-dir -x -a '(__fish_complete_directories)' -d 'keep everything hew writes in this folder'
complete -c hew -l ephemeral -d 'store nothing: no history, checkpoints or log'
complete -c hew -l no-checkpoints -d 'no shadow repository of the workspace'
complete -c hew -l no-mcp -d 'start no MCP server'
complete -c hew -s o -l output -r -F -d 'write the result to a file'
complete -c hew -l api-key-file -r -F -d 'read the API key from a file'
complete -c hew -l record -x -a '(__fish_complete_directories)' -d 'save every exchange with the provider for hew replay'
complete -c hew -l version -d 'print the version'
complete -c hew -l help -d 'print the usage'
