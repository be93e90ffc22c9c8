package dev.weir.it.engines;

import dev.weir.it.LocalStackExtension;
import org.junit.platform.suite.api.ConfigurationParameter;
import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.IncludeTags;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;
import org.junit.platform.suite.api.SuiteDisplayName;

/** The ITCases marked {@link EverySearchEngine}, on OpenSearch 2. */
@Suite
@SuiteDisplayName("search ITCases on OpenSearch 2")
@SelectPackages("dev.weir")
@IncludeClassNamePatterns(".*ITCase")
@IncludeTags(EverySearchEngine.TAG)
@ConfigurationParameter(key = LocalStackExtension.SEARCH_ENGINE, value = "opensearch2")
public class SearchOnOpenSearch2 {}
