@_exported public import StepwiseJSON
@_exported public import StepwiseExpressions
@_exported public import StepwiseSequences
