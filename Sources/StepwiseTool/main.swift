import StepwiseCommands

await StepwiseCLI.runFromCommandLine()
